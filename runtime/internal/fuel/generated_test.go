package fuel

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/sys"

	"github.com/wasmagent/wasmagent/runtime/internal/wasmgen"
)

// The properties the rewrite must keep, checked on modules generated from
// structured pieces (wasmgen.Gen): a fixed seed set here, open-ended in
// FuzzGenerated.

const (
	genDeadline = 50 * time.Millisecond
	// genMargin is what a call may overrun its deadline by. Fuel bounds it
	// at Budget short check-free stretches (well under a millisecond); the
	// rest is a machine shared with other tests.
	genMargin = 2 * time.Second
	// genDepth is the call-depth limit of the comparison runs: small, so
	// that a level leaked per call shows within a few calls.
	genDepth = 8
)

// (a) Under a short deadline, every generated module, hostile ones
// included, ends within the deadline and a margin.
func TestGeneratedModulesStop(t *testing.T) {
	n := 40
	if testing.Short() {
		n = 10
	}
	r := hostRuntime(t, context.Background(), false)
	for seed := range uint64(n) {
		checkStops(t, r, seed, true)
		checkStops(t, r, seed, false)
	}
}

// (b) Modules that terminate compute the same results instrumented and
// not, call after call on one instance (so the depth count is balanced on
// every way out of a function).
func TestGeneratedModulesSameResults(t *testing.T) {
	n := 200
	if testing.Short() {
		n = 60
	}
	r := hostRuntime(t, context.Background(), true)
	for seed := range uint64(n) {
		checkSameResults(t, r, seed)
	}
}

// (c) Nothing that fails validation validates once instrumented: random
// mutations of generated modules.
func TestMutatedModulesStayInvalid(t *testing.T) {
	n := 300
	if testing.Short() {
		n = 60
	}
	r := hostRuntime(t, context.Background(), true)
	for seed := range uint64(n) {
		checkMutations(t, r, seed, 8)
	}
}

// FuzzGenerated runs all three properties on the module of each seed.
//
//	go test ./runtime/internal/fuel -run '^$' -fuzz FuzzGenerated
func FuzzGenerated(f *testing.F) {
	for seed := range uint64(8) {
		f.Add(seed)
	}
	ctx := context.Background()
	interp := hostRuntime(f, ctx, true)
	compiler := hostRuntime(f, ctx, false)
	f.Fuzz(func(t *testing.T, seed uint64) {
		checkSameResults(t, interp, seed)
		checkMutations(t, interp, seed, 4)
		checkStops(t, compiler, seed, true)
	})
}

// checkStops runs the instrumented module of seed with a deadline of
// genDeadline and fails if it is not over by genDeadline + genMargin.
func checkStops(t *testing.T, r wazero.Runtime, seed uint64, hostile bool) {
	t.Helper()
	g := wasmgen.Gen(seed, hostile, true)
	ctx := context.Background()
	m, err := r.InstantiateWithConfig(ctx, mustInstrument(t, g.Wasm, Options{}), wazero.NewModuleConfig().WithName(""))
	if err != nil {
		t.Fatalf("seed %d: %v", seed, err)
	}
	defer m.Close(ctx)
	took, err := callWithWatchdog(ctx, m.ExportedFunction("f1"), genDeadline, genMargin, g.Arg)
	if errors.Is(err, errStillRunning) {
		t.Fatalf("seed %d (hostile %v): %v: a cycle escapes the checks\n%s", seed, hostile, err, dump(g.Wasm))
	}
	var exit *sys.ExitError
	if errors.As(err, &exit) && exit.ExitCode() != sys.ExitCodeDeadlineExceeded {
		t.Fatalf("seed %d: %v", seed, err)
	}
	if took > genDeadline+genMargin {
		t.Fatalf("seed %d (hostile %v): ended after %v, deadline %v", seed, hostile, took, genDeadline)
	}
}

var errStillRunning = errors.New("still running")

// callWithWatchdog calls f with a deadline and returns how long it took,
// or errStillRunning once the deadline and the margin have passed. The GC
// is off meanwhile: a guest that never reaches a check would otherwise
// freeze the whole process at the next stop-the-world, the watchdog
// included. (Such a guest goes on running: the test has failed.)
func callWithWatchdog(ctx context.Context, f api.Function, deadline, margin time.Duration, args ...uint64) (time.Duration, error) {
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	cctx, cancel := context.WithTimeout(ctx, deadline)
	defer cancel()
	done := make(chan error, 1)
	start := time.Now()
	go func() {
		_, err := f.Call(cctx, args...)
		done <- err
	}()
	select {
	case err := <-done:
		return time.Since(start), err
	case <-time.After(deadline + margin):
		return time.Since(start), fmt.Errorf("%w %v after a deadline of %v", errStillRunning, margin, deadline)
	}
}

// outcome is what one call did: its results, or the first line of its
// trap.
func outcome(ctx context.Context, m api.Module, export string, arg uint64) string {
	res, err := m.ExportedFunction(export).Call(ctx, arg)
	if err != nil {
		first, _, _ := strings.Cut(err.Error(), "\n")
		return "trap: " + first
	}
	s := fmt.Sprint(res)
	if gl := m.ExportedGlobal("g"); gl != nil {
		s += fmt.Sprintf(" g=%d", gl.Get())
	}
	if mem := m.ExportedMemory("memory"); mem != nil {
		b, _ := mem.Read(0, 256)
		s += fmt.Sprintf(" mem=%x", b)
	}
	return s
}

func checkSameResults(t *testing.T, r wazero.Runtime, seed uint64) {
	t.Helper()
	g := wasmgen.Gen(seed, false, true)
	ctx := context.Background()
	inst := mustInstrument(t, g.Wasm, Options{MaxCallDepth: genDepth})
	orig := instantiateRaw(t, ctx, r, g.Wasm)
	defer orig.Close(ctx)
	ins := instantiateRaw(t, ctx, r, inst)
	defer ins.Close(ctx)
	for round := range genDepth + 2 {
		for _, e := range g.Exports {
			arg := g.Arg + uint64(round%2)
			want, got := outcome(ctx, orig, e, arg), outcome(ctx, ins, e, arg)
			if got != want {
				t.Fatalf("seed %d, call %d of %s(%d): instrumented %s, original %s\n%s", seed, round, e, arg, got, want, dump(g.Wasm))
			}
			if strings.HasPrefix(want, "trap") {
				return // the instance is not reused after a trap
			}
		}
	}
}

// checkMutations flips, inserts and deletes bytes of the module of seed,
// and fails if a mutant that wazero refuses compiles once instrumented.
func checkMutations(t *testing.T, r wazero.Runtime, seed uint64, n int) {
	t.Helper()
	g := wasmgen.Gen(seed, seed%2 == 0, false)
	rng := rand.New(rand.NewPCG(seed, 7))
	ctx := context.Background()
	for range n {
		m := mutate(rng, g.Wasm)
		inst, err := Instrument(m, Options{})
		if err != nil {
			continue
		}
		ci, err := r.CompileModule(ctx, inst)
		if err != nil {
			continue
		}
		ci.Close(ctx)
		// Instrument read every item of every vector, so wazero will not
		// allocate for a forged count here.
		co, err := r.CompileModule(ctx, m)
		if err != nil {
			t.Fatalf("seed %d: instrumenting made an invalid module valid: %v\n%s", seed, err, dump(m))
		}
		co.Close(ctx)
	}
}

func mutate(rng *rand.Rand, wasm []byte) []byte {
	m := append([]byte(nil), wasm...)
	for range 1 + rng.IntN(3) {
		i := 8 + rng.IntN(len(m)-8)
		switch rng.IntN(4) {
		case 0:
			m[i] ^= byte(1 << rng.IntN(8))
		case 1:
			m[i] = byte(rng.IntN(256))
		case 2:
			m = append(m[:i], append([]byte{byte(rng.IntN(256))}, m[i:]...)...)
		default:
			m = append(m[:i], m[i+1:]...)
		}
	}
	return m
}

func dump(wasm []byte) string { return fmt.Sprintf("module (%d bytes): %x", len(wasm), wasm) }
