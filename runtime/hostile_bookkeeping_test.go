package runtime_test

import (
	"context"
	"errors"
	"log/slog"
	"math/rand/v2"
	goruntime "runtime"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/wasmagent/wasmagent/internal/wasmbuild"
	"github.com/wasmagent/wasmagent/runtime"
)

// What the host keeps for a plugin beside the bytes a cap counts (an
// entry per block of host memory, a record per log line) is counted too:
// the caps bound what the host holds and writes, not only the bytes the
// plugin chose. These modules multiply such records at the least cost to
// themselves: blocks of one byte, empty log lines.

// bookkeeping's exports loop forever (each until a cap ends it):
// "blocks" allocates one-byte blocks, "empty_logs" logs the null block
// (an empty line), "short_logs" logs one-byte blocks, and "vars" sets
// one-byte variables of distinct names.
func bookkeeping() []byte {
	const (
		fAlloc = iota
		fStoreU64
		fLogWarn
		fVarSet
		fFuncs
	)
	I32, I64 := wasmbuild.I32, wasmbuild.I64
	env := func(name string, params, results []byte) wasmbuild.Import {
		return wasmbuild.Import{Module: "extism:host/env", Name: name, Func: wasmbuild.Func{Params: params, Results: results}}
	}
	i32 := []byte{I32}
	alloc1 := ops(i64c(1), call(fAlloc))
	exports := map[string]wasmbuild.Func{
		"blocks":     {Results: i32, Body: ops(forever(alloc1, opDrop), i32c(0))},
		"empty_logs": {Results: i32, Body: ops(forever(i64c(0), call(fLogWarn)), i32c(0))},
		"short_logs": {Results: i32, Body: ops(forever(alloc1, call(fLogWarn)), i32c(0))},
		// locals: 0 the counter, 1 the name's block. The name is the
		// counter's 8 bytes, so that every variable is new.
		"vars": {Results: i32, Locals: []byte{I64, I64}, Body: ops(forever(
			i64c(8), call(fAlloc), lset(1),
			lget(1), lget(0), call(fStoreU64),
			lget(1), alloc1, call(fVarSet),
			lget(0), i64c(1), []byte{0x7c}, lset(0),
		), i32c(0))},
	}
	m := wasmbuild.Module{
		Imports: []wasmbuild.Import{
			env("alloc", []byte{I64}, []byte{I64}),
			env("store_u64", []byte{I64, I64}, nil),
			env("log_warn", []byte{I64}, nil),
			env("var_set", []byte{I64, I64}, nil),
		},
		Exports: map[string]uint32{},
	}
	for _, name := range []string{"blocks", "empty_logs", "short_logs", "vars"} {
		m.Exports[name] = uint32(fFuncs + len(m.Funcs))
		m.Funcs = append(m.Funcs, exports[name])
	}
	return m.Encode()
}

// allocatedBy reports the bytes of Go heap f allocates, the least of
// three runs (the count is the process's).
func allocatedBy(f func()) uint64 {
	least := ^uint64(0)
	for range 3 {
		var a, b goruntime.MemStats
		goruntime.ReadMemStats(&a)
		f()
		goruntime.ReadMemStats(&b)
		least = min(least, b.TotalAlloc-a.TotalAlloc)
	}
	return least
}

// A plugin allocating blocks of one byte until its host memory is full
// makes the host hold at most about that much for them: each block
// counts runtime.BlockCost bytes beside its own. On the old main the
// count of blocks was unbounded but for their bytes: 2 MiB of host
// memory held 2 million blocks, whose map made the host allocate 146 MiB
// of Go heap (now 2.3 MiB).
func TestBlockBookkeepingIsCounted(t *testing.T) {
	if runtime.RaceEnabled {
		t.Skip("the race detector's allocations are not what the bound is about")
	}
	const pages = 32 // 2 MiB of host memory
	const grant = pages << 16
	p := pluginOf(t, "bookkeeping.wasm", bookkeeping(), runtime.PluginOptions{Grants: runtime.Grants{MemoryPages: pages}})
	var err error
	got := allocatedBy(func() { _, err = p.Call(context.Background(), "blocks", nil, nil) })
	var ce *runtime.CapError
	if !errors.As(err, &ce) || ce.Cap != "MemoryPages" || !strings.Contains(err.Error(), "blocks") {
		t.Fatalf("err = %v, want a CapError for MemoryPages naming the blocks", err)
	}
	// The grant itself, twice (a map grows by doubling), and the instance.
	const bound = 2*grant + 1<<20
	t.Logf("one-byte blocks until the host memory of %d KiB was full: %d KiB allocated", grant>>10, got>>10)
	if got > bound {
		t.Fatalf("the call allocated %d KiB of Go heap, over the bound of %d KiB", got>>10, bound>>10)
	}
}

// A plugin setting variables of one byte under distinct names until
// MaxVarBytes stops it makes the host hold about that much for them:
// each variable counts runtime.VarCost bytes beside its name and value.
// On the old main a variable counted its 9 bytes only: 1 MiB of them
// were 116,000 entries of a map, and the call allocated 24 MiB of Go
// heap (now 2.6 MiB).
func TestVariableBookkeepingIsCounted(t *testing.T) {
	if runtime.RaceEnabled {
		t.Skip("the race detector's allocations are not what the bound is about")
	}
	const maxVars = 1 << 20
	p := pluginOf(t, "bookkeeping.wasm", bookkeeping(), runtime.PluginOptions{Grants: runtime.Grants{MaxVarBytes: maxVars}})
	var err error
	got := allocatedBy(func() { _, err = p.Call(context.Background(), "vars", nil, nil) })
	var ce *runtime.CapError
	if !errors.As(err, &ce) || ce.Cap != "MaxVarBytes" {
		t.Fatalf("err = %v, want a CapError for MaxVarBytes", err)
	}
	const bound = 2*maxVars + 1<<20
	t.Logf("variables of one byte until MaxVarBytes (%d KiB): %d KiB allocated", maxVars>>10, got>>10)
	if got > bound {
		t.Fatalf("the call allocated %d KiB of Go heap, over the bound of %d KiB", got>>10, bound>>10)
	}
}

// countingHandler counts the plugin's log lines (those at warn, the level
// bookkeeping logs at, that are not the runtime's own) and their bytes.
type countingHandler struct{ records, bytes atomic.Int64 }

func (h *countingHandler) Enabled(context.Context, slog.Level) bool { return true }
func (h *countingHandler) Handle(_ context.Context, r slog.Record) error {
	if r.Level != slog.LevelWarn || strings.HasPrefix(r.Message, "runtime:") {
		return nil
	}
	h.records.Add(1)
	h.bytes.Add(int64(len(r.Message)))
	return nil
}
func (h *countingHandler) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h *countingHandler) WithGroup(string) slog.Handler      { return h }

// A plugin logging empty or one-byte lines is stopped by MaxLogBytes as
// one logging long ones: each line counts runtime.LogLineCost bytes
// beside its text, so what reaches the host's log is bounded by lines,
// not only by bytes. On the old main an empty line counted nothing: the
// plugin wrote lines to the host's log until its deadline (7.8 million
// in 10 s), and one-byte lines 65,536 under a cap of 64 KiB.
func TestLogLinesAreCounted(t *testing.T) {
	for _, export := range []string{"empty_logs", "short_logs"} {
		t.Run(export, func(t *testing.T) {
			ctx := context.Background()
			h := &countingHandler{}
			r, err := runtime.New(ctx, runtime.Options{CacheDir: "off", Logger: slog.New(h)})
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close(ctx)
			m, err := r.Compile(ctx, "bookkeeping.wasm", bookkeeping())
			if err != nil {
				t.Fatal(err)
			}
			const maxLog = 64 << 10
			p, err := r.NewPlugin(m, runtime.PluginOptions{Name: "logs", Grants: runtime.Grants{MaxLogBytes: maxLog, Timeout: 10e9}})
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close()
			_, err = p.Call(ctx, export, nil, nil)
			lines, bytes := h.records.Load(), h.bytes.Load()
			t.Logf("%d lines, %d bytes of text logged under a cap of %d", lines, bytes, maxLog)
			var ce *runtime.CapError
			if !errors.As(err, &ce) || ce.Cap != "MaxLogBytes" {
				t.Fatalf("err = %v, want a CapError for MaxLogBytes", err)
			}
			if lines*runtime.LogLineCost+bytes > maxLog {
				t.Fatalf("%d lines of %d bytes in all reached the log: %d bytes counted at %d a line, over the cap of %d", lines, bytes, lines*runtime.LogLineCost+bytes, runtime.LogLineCost, maxLog)
			}
		})
	}
}

// The kernel's invariant, over generated sequences of allocations (most
// of a few bytes, as a plugin multiplying blocks would make them) and
// frees: the bytes in use and runtime.BlockCost per live block stay
// within the limit, whatever the order.
func TestBlockCostProperty(t *testing.T) {
	for seed := range uint64(200) {
		rng := rand.New(rand.NewPCG(seed, 7))
		limit := uint64(4096 + rng.IntN(64<<10))
		if msg := runtime.KernelScript(limit, func() (alloc bool, n uint64, pick int) {
			if rng.IntN(4) == 0 {
				return false, 0, rng.IntN(1 << 20)
			}
			n = uint64(rng.IntN(4))
			if rng.IntN(50) == 0 {
				n = uint64(rng.IntN(int(limit)))
			}
			return true, n, 0
		}, 5000); msg != "" {
			t.Fatalf("seed %d, limit %d: %s", seed, limit, msg)
		}
	}
}
