package runtime

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"
	"github.com/tetratelabs/wazero/sys"
)

// instance is one instantiation of a plugin's module. It serves one call
// and is closed.
type instance struct {
	p   *Plugin
	mod api.Module
	st  *callState
}

// instantiate makes a fresh instance and runs the module's initialiser
// (_initialize for reactors, __wasm_call_ctors, hs_init), within the
// plugin's timeout.
func (p *Plugin) instantiate(ctx context.Context) (*instance, error) {
	ctx, cancel := context.WithTimeout(ctx, p.grants.initTimeout())
	defer cancel()
	limit := uint64(p.grants.MemoryPages) << 16
	st := &callState{kernel: newKernel(limit), p: p, ctx: ctx}
	wctx := experimental.WithMemoryAllocator(context.WithValue(ctx, stateKey{}, st), memoryCap{limit: limit})
	mod, err := p.r.rt.InstantiateModule(wctx, p.m.compiled, p.grants.moduleConfig(st))
	if err != nil {
		return nil, p.callError("instantiate", ctx, st, err)
	}
	inst := &instance{p: p, mod: mod, st: st}
	if err := inst.initialize(wctx); err != nil {
		inst.close()
		return nil, p.callError("instantiate", ctx, st, err)
	}
	return inst, nil
}

func (inst *instance) initialize(ctx context.Context) error {
	call := func(name string, params ...uint64) (bool, error) {
		f := inst.mod.ExportedFunction(name)
		if f == nil || len(f.Definition().ParamTypes()) != len(params) {
			return false, nil
		}
		_, err := f.Call(ctx, params...)
		return true, err
	}
	ran, err := call("_initialize")
	if err != nil {
		return err
	}
	if !ran {
		if ran, err = call("__wasm_call_ctors"); err != nil {
			return err
		}
	}
	if !ran {
		// A WASI command: run its _start as Extism does; one that exits
		// (a Go program built without -buildmode=c-shared) is not a plugin.
		if _, err := call("_start"); err != nil {
			var exit *sys.ExitError
			if errors.As(err, &exit) {
				return fmt.Errorf("its _start exited with code %d: a plugin must be a library (a WASI reactor); build Go plugins with -buildmode=c-shared", exit.ExitCode())
			}
			return err
		}
	}
	_, err = call("hs_init", 0, 0)
	return err
}

func (inst *instance) close() { inst.mod.Close(context.Background()) }

// call runs one export with input.
func (inst *instance) call(ctx context.Context, export string, input []byte, onUpdate func([]byte) error) ([]byte, error) {
	p, st := inst.p, inst.st
	ctx, cancel := context.WithTimeout(ctx, p.grants.Timeout)
	defer cancel()
	st.ctx, st.onUpdate = ctx, onUpdate
	if f := st.setInput(input); f != nil {
		return nil, &CallError{Plugin: p.name, Export: export, Err: f}
	}
	fn := inst.mod.ExportedFunction(export)
	if n := len(fn.Definition().ParamTypes()); n != 0 {
		return nil, &CallError{Plugin: p.name, Export: export, Err: fmt.Errorf("the export takes %d parameters; an Extism export takes none and returns an i32", n)}
	}
	res, err := fn.Call(context.WithValue(ctx, stateKey{}, st))
	if err != nil {
		return nil, p.callError(export, ctx, st, err)
	}
	if len(res) > 0 && int32(res[0]) != 0 {
		msg := ""
		if b, f := st.block(st.errorOff, "error"); f == nil {
			msg = string(b)
		}
		if msg == "" {
			msg = fmt.Sprintf("returned %d without an error message", int32(res[0]))
		}
		return nil, &CallError{Plugin: p.name, Export: export, Err: ErrPlugin, Message: truncate(msg, MaxMessageBytes)}
	}
	return append([]byte(nil), st.outputBytes()...), nil
}

// callError explains a failed wazero call: the context first (a closed
// module is what a deadline or an abort looks like from inside), then a
// host-side fault, then the guest's exit or trap.
func (p *Plugin) callError(export string, ctx context.Context, st *callState, err error) *CallError {
	e := &CallError{Plugin: p.name, Export: export}
	var exit *sys.ExitError
	timeout := p.grants.Timeout
	if export == "instantiate" {
		timeout = p.grants.initTimeout()
	}
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		e.Err = fmt.Errorf("did not finish within its timeout of %v: %w", timeout, context.DeadlineExceeded)
	case errors.Is(ctx.Err(), context.Canceled):
		e.Err = fmt.Errorf("aborted: %w", context.Canceled)
	case st.fault != nil:
		e.Err = st.fault
	case errors.As(err, &exit):
		e.Err = fmt.Errorf("the plugin exited with code %d", exit.ExitCode())
		e.Message = truncate(strings.TrimSpace(st.stderr.String()), MaxMessageBytes)
	default:
		// A trap: wazero's first line names it; its Wasm stack trace
		// follows and is of no use to a model.
		first, _, _ := strings.Cut(err.Error(), "\n")
		e.Err = errors.New(first)
		e.Message = truncate(strings.TrimSpace(st.stderr.String()), MaxMessageBytes)
	}
	return e
}
