package fuel

import (
	"context"
	"errors"
	"testing"

	"github.com/tetratelabs/wazero/sys"

	"github.com/wasmagent/wasmagent/runtime/internal/wasmgen"
)

// A loop of large memory.fill is charged by length, so it stops at its
// deadline too (charged one check per iteration, it would run 65536
// fills of 16 MiB first: minutes).
func TestBulkInstructionsAreCharged(t *testing.T) {
	ctx := context.Background()
	m := instantiateRaw(t, ctx, hostRuntime(t, ctx, false), mustInstrument(t, wasmgen.Fill(), Options{}))
	took, err := callWithWatchdog(ctx, m.ExportedFunction("fill"), genDeadline, genMargin)
	var exit *sys.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != sys.ExitCodeDeadlineExceeded {
		t.Fatalf("after %v: err = %v, want a deadline exit", took, err)
	}
	t.Logf("stopped after %v with a deadline of %v", took, genDeadline)
}

// table.grow cannot take a table past the limit (a grow to 2^32 entries
// is 32 GiB of host memory): it fails as a grow past the maximum does,
// and below the limit it behaves as before.
func TestTableGrowIsBounded(t *testing.T) {
	ctx := context.Background()
	r := hostRuntime(t, ctx, false)
	orig := instantiateRaw(t, ctx, r, wasmgen.Grow()).ExportedFunction("grow")
	inst := instantiateRaw(t, ctx, r, mustInstrument(t, wasmgen.Grow(), Options{MaxTableElements: 100})).ExportedFunction("grow")
	for _, c := range []struct {
		n          uint32
		orig, inst int32 // old size, or -1
	}{{0, 1, 1}, {50, 1, 1}, {49, 51, 51}, {1, 100, -1}, {0, 101, 100}, {0xffffffff, -1, -1}} {
		if res, err := orig.Call(ctx, uint64(c.n)); err != nil || int32(res[0]) != c.orig {
			t.Fatalf("original grow(%d) = %v, %v; want %d", c.n, res, err, c.orig)
		}
		if res, err := inst.Call(ctx, uint64(c.n)); err != nil || int32(res[0]) != c.inst {
			t.Fatalf("instrumented grow(%d) = %v, %v; want %d", c.n, res, err, c.inst)
		}
	}
	// Uninstrumented, this grow takes 8 GiB of host memory and minutes.
	if res, err := inst.Call(ctx, 1<<30); err != nil || int32(res[0]) != -1 {
		t.Fatalf("instrumented grow(2^30) = %v, %v; want -1", res, err)
	}
}

// Growth shares the bound among a module's tables: growing every one of
// them as far as it goes holds at most MaxTableElements elements beyond
// their sizes at start, however many tables the module declares. (On the
// old main each table could grow to the bound: 1,024 tables, 8 GiB.)
func TestTableGrowthIsSharedAmongTables(t *testing.T) {
	ctx := context.Background()
	r := hostRuntime(t, ctx, false)
	for _, n := range []int{1, 2, 3, 7, 64} {
		const bound = 200
		fill := instantiateRaw(t, ctx, r, mustInstrument(t, wasmgen.GrowTables(n), Options{MaxTableElements: bound})).ExportedFunction("fill")
		res, err := fill.Call(ctx)
		if err != nil {
			t.Fatalf("%d tables: %v", n, err)
		}
		// Each table (one element at start) grows to its share, max/n
		// elements (or keeps its one, if the share is less).
		if got, want := int32(res[0]), int32(n*max(1, bound/n)); got != want {
			t.Errorf("%d tables grown as far as they go: %d elements, want %d (the bound is %d)", n, got, want, bound)
		}
	}
}

// A check is charged by the work its region can do: a loop whose body
// makes 2000 host calls ticks every iteration, not every 65536 (which
// would be seconds past the deadline).
func TestChecksAreWeighted(t *testing.T) {
	ctx := context.Background()
	m := instantiateRaw(t, ctx, hostRuntime(t, ctx, false), mustInstrument(t, wasmgen.HostLoop(2000), Options{}))
	took, err := callWithWatchdog(ctx, m.ExportedFunction("spin"), genDeadline, genMargin)
	var exit *sys.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != sys.ExitCodeDeadlineExceeded {
		t.Fatalf("after %v: err = %v, want a deadline exit", took, err)
	}
	t.Logf("stopped after %v with a deadline of %v", took, genDeadline)
}
