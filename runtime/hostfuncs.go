package runtime

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"unicode/utf8"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/sys"
)

// hostFunc is one host function: its Wasm signature and its Go body.
type hostFunc struct {
	params, results []api.ValueType
	fn              func(st *callState, stack []uint64)
}

var (
	i32 = api.ValueTypeI32
	i64 = api.ValueTypeI64
)

func sig(params ...api.ValueType) []api.ValueType { return params }

// envFunctions is the Extism host ABI (extism:host/env), as every Extism PDK
// imports it. The kernel's functions come first, then the ones go-sdk
// implements in Go.
var envFunctions = map[string]hostFunc{
	"alloc": {sig(i64), sig(i64), func(st *callState, s []uint64) {
		off, f := st.alloc(s[0])
		st.check(f)
		s[0] = off
	}},
	"free":          {sig(i64), nil, func(st *callState, s []uint64) { st.free(s[0]) }},
	"length":        {sig(i64), sig(i64), func(st *callState, s []uint64) { s[0] = st.blocks[s[0]] }},
	"length_unsafe": {sig(i64), sig(i64), func(st *callState, s []uint64) { s[0] = st.blocks[s[0]] }},
	"load_u8": {sig(i64), sig(i32), func(st *callState, s []uint64) {
		v, f := st.loadU8(s[0])
		st.check(f)
		s[0] = uint64(v)
	}},
	"load_u64": {sig(i64), sig(i64), func(st *callState, s []uint64) {
		v, f := st.loadU64(s[0])
		st.check(f)
		s[0] = v
	}},
	"store_u8":  {sig(i64, i32), nil, func(st *callState, s []uint64) { st.check(st.storeU8(s[0], byte(s[1]))) }},
	"store_u64": {sig(i64, i64), nil, func(st *callState, s []uint64) { st.check(st.storeU64(s[0], s[1])) }},
	"input_load_u8": {sig(i64), sig(i32), func(st *callState, s []uint64) {
		v, f := st.inputLoadU8(s[0])
		st.check(f)
		s[0] = uint64(v)
	}},
	"input_load_u64": {sig(i64), sig(i64), func(st *callState, s []uint64) {
		v, f := st.inputLoadU64(s[0])
		st.check(f)
		s[0] = v
	}},
	"input_length": {nil, sig(i64), func(st *callState, s []uint64) { s[0] = st.inputLen }},
	"input_offset": {nil, sig(i64), func(st *callState, s []uint64) { s[0] = st.input }},
	"input_set": {sig(i64, i64), nil, func(st *callState, s []uint64) {
		st.check(st.span(s[0], s[1], "input_set"))
		st.input, st.inputLen = s[0], s[1]
	}},
	"output_set": {sig(i64, i64), nil, func(st *callState, s []uint64) {
		off, n := s[0], s[1]
		if n > 0 {
			st.check(st.span(off, n, "output_set"))
		}
		if n > uint64(st.p.grants.MaxOutputBytes) {
			st.check(capFault("MaxOutputBytes", st.p.grants.MaxOutputBytes, "output_set: an output of %d bytes", n))
		}
		st.output, st.outputLen = off, n
	}},
	"output_length": {nil, sig(i64), func(st *callState, s []uint64) { s[0] = st.outputLen }},
	"output_offset": {nil, sig(i64), func(st *callState, s []uint64) { s[0] = st.output }},
	"error_set": {sig(i64), nil, func(st *callState, s []uint64) {
		if s[0] != 0 {
			_, f := st.block(s[0], "error_set")
			st.check(f)
		}
		st.errorOff = s[0]
	}},
	"error_get":    {nil, sig(i64), func(st *callState, s []uint64) { s[0] = st.errorOff }},
	"memory_bytes": {nil, sig(i64), func(st *callState, s []uint64) { s[0] = uint64(len(st.mem)) }},
	"reset":        {nil, nil, func(st *callState, s []uint64) { st.reset() }},

	"config_get": {sig(i64), sig(i64), func(st *callState, s []uint64) {
		key, f := st.block(s[0], "config_get")
		st.check(f)
		v, ok := st.p.grants.Config[string(key)]
		if !ok {
			s[0] = 0
			return
		}
		off, f := st.allocBytes([]byte(v))
		st.check(f)
		s[0] = off
	}},
	"var_get": {sig(i64), sig(i64), func(st *callState, s []uint64) {
		key, f := st.block(s[0], "var_get")
		st.check(f)
		v, ok := st.vars[string(key)]
		st.free(s[0])
		if !ok {
			s[0] = 0
			return
		}
		off, f := st.allocBytes(v)
		st.check(f)
		s[0] = off
	}},
	"var_set": {sig(i64, i64), nil, func(st *callState, s []uint64) {
		key, f := st.block(s[0], "var_set")
		st.check(f)
		name := string(key)
		st.free(s[0])
		if old, ok := st.vars[name]; ok {
			st.varBytes -= VarCost + len(name) + len(old)
			delete(st.vars, name)
		}
		if s[1] == 0 {
			return
		}
		v, f := st.block(s[1], "var_set")
		st.check(f)
		if st.varWriteBytes += int64(len(name) + len(v)); st.varWriteBytes > st.p.grants.MaxVarWriteBytes {
			st.check(capFault("MaxVarWriteBytes", st.p.grants.MaxVarWriteBytes, "var_set %q: %d bytes of variables written in this call", name, st.varWriteBytes))
		}
		if size := VarCost + len(name) + len(v); st.varBytes+size > st.p.grants.MaxVarBytes {
			st.check(capFault("MaxVarBytes", st.p.grants.MaxVarBytes, "var_set %q: the variables would take %d bytes (each counted %d bytes beside its name and value)", name, st.varBytes+size, VarCost))
		}
		if st.vars == nil {
			st.vars = map[string][]byte{}
		}
		st.vars[name] = append([]byte(nil), v...)
		st.varBytes += VarCost + len(name) + len(v)
		st.free(s[1])
	}},
	"http_request":     {sig(i64, i64), sig(i64), func(st *callState, s []uint64) { s[0] = st.httpRequest(s[0], s[1]) }},
	"http_status_code": {nil, sig(i32), func(st *callState, s []uint64) { s[0] = uint64(uint32(st.httpStatus)) }},
	"http_headers": {nil, sig(i64), func(st *callState, s []uint64) {
		if st.httpHeaders == nil {
			s[0] = 0
			return
		}
		off, f := st.allocBytes(st.httpHeaders)
		st.check(f)
		s[0] = off
	}},
	"get_log_level": {nil, sig(i32), func(st *callState, s []uint64) { s[0] = uint64(uint32(logLevels[st.p.grants.LogLevel])) }},
	"log_trace":     logFunc(0),
	"log_debug":     logFunc(1),
	"log_info":      logFunc(2),
	"log_warn":      logFunc(3),
	"log_error":     logFunc(4),
}

// userFunctions are wasmagent's own host functions.
var userFunctions = map[string]hostFunc{
	"emit_update": {sig(i64), nil, func(st *callState, s []uint64) {
		b, f := st.block(s[0], "emit_update")
		st.check(f)
		g := &st.p.grants
		if st.updates++; st.updates > g.MaxUpdates {
			st.check(capFault("MaxUpdates", g.MaxUpdates, "emit_update: %d updates in one call", st.updates))
		}
		if len(b) > g.MaxOutputBytes {
			st.check(capFault("MaxOutputBytes", g.MaxOutputBytes, "emit_update: an update of %d bytes", len(b)))
		}
		if st.updateBytes += int64(len(b)); st.updateBytes > g.MaxUpdateBytes {
			st.check(capFault("MaxUpdateBytes", g.MaxUpdateBytes, "emit_update: %d bytes of updates in one call", st.updateBytes))
		}
		if st.onUpdate != nil {
			payload := append([]byte(nil), b...)
			err := st.p.r.recovered("emit_update", func() error { return st.onUpdate(payload) })
			switch {
			case errors.Is(err, ErrHost):
				st.check(&fault{err})
			case err != nil:
				st.check(faultf("emit_update: %v", err))
			}
		}
		st.free(s[0])
	}},
}

// VarCost is what each Extism variable counts against Grants.MaxVarBytes
// beside its name and value: the host's map entry and the headers of
// their copies. Without it, variables of one byte under distinct names
// made the host allocate some 24 times the cap (RATIONALE.md, "Why do blocks, variables, log lines and directory
// entries count more than their bytes?").
const VarCost = 64

// logLevels are Extism's levels as get_log_level reports them.
var logLevels = map[string]int32{"trace": 0, "debug": 1, "info": 2, "warn": 3, "error": 4, "off": math.MaxInt32}

var slogLevels = [...]slog.Level{slog.LevelDebug - 4, slog.LevelDebug, slog.LevelInfo, slog.LevelWarn, slog.LevelError}

// maxLogLine bounds one log line: longer lines are cut. What a call logs
// in all is bounded by Grants.MaxLogBytes.
const maxLogLine = 4096

// LogLineCost is what each log line counts against Grants.MaxLogBytes
// beside its bytes: the host writes a time, a level and the plugin's
// name with it. Without it, empty lines counted nothing, and a plugin
// could write lines to the host's log for as long as its deadline
// allowed (RATIONALE.md, "Why do blocks, variables, log lines and directory
// entries count more than their bytes?").
const LogLineCost = 64

func logFunc(level int32) hostFunc {
	return hostFunc{sig(i64), nil, func(st *callState, s []uint64) {
		b, f := st.block(s[0], "log")
		st.check(f)
		if level >= logLevels[st.p.grants.LogLevel] {
			if st.logBytes += len(b) + LogLineCost; st.logBytes > st.p.grants.MaxLogBytes {
				st.check(capFault("MaxLogBytes", st.p.grants.MaxLogBytes, "log: %d bytes logged in this call (each line counted %d bytes more)", st.logBytes, LogLineCost))
			}
			msg := string(b[:min(len(b), maxLogLine)])
			if !utf8.ValidString(msg) {
				msg = fmt.Sprintf("%q", msg)
			}
			st.p.r.log.Log(st.ctx, slogLevels[level], msg, "plugin", st.p.name)
		}
		st.free(s[0])
	}}
}

// tick is wasmagent.tick, which instrumented code calls when its fuel runs
// out: it ends the call if the call's context is done (closing the module,
// as wazero's own deadline check does) and otherwise refills the budget.
func tick(ctx context.Context, mod api.Module, stack []uint64) {
	if err := ctx.Err(); err != nil {
		code := sys.ExitCodeContextCanceled
		if errors.Is(err, context.DeadlineExceeded) {
			code = sys.ExitCodeDeadlineExceeded
		}
		mod.CloseWithExitCode(context.Background(), code)
		panic(sys.NewExitError(code))
	}
	stack[0] = fuelBudget
}

// instantiateHostModules adds envFunctions, userFunctions and tick to rt.
func instantiateHostModules(ctx context.Context, rt wazero.Runtime) error {
	if _, err := rt.NewHostModuleBuilder(tickModule).
		NewFunctionBuilder().WithGoModuleFunction(api.GoModuleFunc(tick), nil, []api.ValueType{i64}).Export(tickName).
		Instantiate(ctx); err != nil {
		return fmt.Errorf("%s: %w", tickModule, err)
	}
	for mod, fns := range map[string]map[string]hostFunc{"extism:host/env": envFunctions, "extism:host/user": userFunctions} {
		b := rt.NewHostModuleBuilder(mod)
		for name, hf := range fns {
			b.NewFunctionBuilder().
				WithGoModuleFunction(api.GoModuleFunc(func(ctx context.Context, _ api.Module, stack []uint64) {
					st := stateOf(ctx)
					st.enter()
					if st.imaging {
						st.cannotReplay("calls the host function " + mod + "." + name)
					}
					st.hostCalls++
					hf.fn(st, stack)
				}), hf.params, hf.results).
				Export(name)
		}
		if _, err := b.Instantiate(ctx); err != nil {
			return fmt.Errorf("%s: %w", mod, err)
		}
	}
	return nil
}
