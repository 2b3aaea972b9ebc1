package runtime

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime/debug"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wasmagent/wasmagent/runtime/internal/wasmgen"
)

// The instrumentation itself is tested in runtime/internal/fuel; these
// tests check it through a Plugin.

// The same through a Plugin: a timeout and an abort both end the tree.
func TestCallTreeThroughPlugin(t *testing.T) {
	r, err := New(context.Background(), Options{CacheDir: "off"})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close(context.Background())
	m, err := r.Compile(context.Background(), "tree.wasm", wasmgen.GuardedTree())
	if err != nil {
		t.Fatal(err)
	}
	p, err := r.NewPlugin(m, PluginOptions{Grants: Grants{Timeout: 200 * time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if _, err := p.Call(context.Background(), "tree", nil, nil); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("timeout: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	if _, err := p.Call(ctx, "tree", nil, nil); !errors.Is(err, context.Canceled) {
		t.Fatalf("abort: %v", err)
	}
}

// recursionPlugin is wasmgen.Recursion as a plugin of a new Runtime.
func recursionPlugin(t *testing.T, opts Options, g Grants) *Plugin {
	t.Helper()
	r, err := New(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close(context.Background()) })
	m, err := r.Compile(context.Background(), "rec.wasm", wasmgen.Recursion())
	if err != nil {
		t.Fatal(err)
	}
	p, err := r.NewPlugin(m, PluginOptions{Grants: g})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	return p
}

// Runaway recursion ends at the instrumentation's call-depth limit, with
// its own error, in milliseconds; the host stays up.
func TestRunawayRecursion(t *testing.T) {
	p := recursionPlugin(t, Options{CacheDir: "off"}, Grants{})
	start := time.Now()
	_, err := p.Call(context.Background(), "rec", nil, nil)
	if err == nil || !strings.HasSuffix(err.Error(), "rec: call depth limit exceeded (65536)") {
		t.Fatalf("err = %v", err)
	}
	t.Logf("%v after %v", err, time.Since(start))
}

// peakRSS resets and then reads the process's peak resident memory
// (Linux); ok is false elsewhere.
func resetPeakRSS() bool { return os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) == nil }

func peakRSS() (int64, bool) {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, false
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			var kb int64
			fmt.Sscan(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), &kb)
			return kb << 10, true
		}
	}
	return 0, false
}

// Six concurrent runaway recursions with a host cap of 2 stay under the
// stated bound: per running call, its memory grants plus wazero's
// 400 MB call-stack ceiling.
func TestRecursionMemoryBound(t *testing.T) {
	if testing.Short() {
		t.Skip("grows call stacks")
	}
	if raceEnabled {
		t.Skip("the race detector's shadow memory is not what the bound is about")
	}
	if !resetPeakRSS() {
		t.Skip("needs Linux /proc/self/clear_refs")
	}
	const cap = 2
	p := recursionPlugin(t, Options{CacheDir: "off", MaxConcurrentCalls: cap}, Grants{MemoryPages: 16})
	debug.FreeOSMemory()
	resetPeakRSS()
	base, _ := peakRSS()
	var wg sync.WaitGroup
	for range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := p.Call(context.Background(), "rec", nil, nil); err == nil || !strings.HasSuffix(err.Error(), errCallDepth.Error()) {
				t.Errorf("err = %v", err)
			}
		}()
	}
	wg.Wait()
	peak, _ := peakRSS()
	grant := int64(2 * 16 << 16) // linear memory and host memory, 16 pages each
	bound := base + cap*(400<<20+grant)
	t.Logf("peak RSS %d MiB over a base of %d MiB; bound %d MiB", peak>>20, base>>20, bound>>20)
	if peak > bound {
		t.Fatalf("peak RSS %d MiB is over the bound of %d MiB", peak>>20, bound>>20)
	}
}
