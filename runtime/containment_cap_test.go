package runtime_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wasmagent/wasmagent/internal/wasmbuild"
	"github.com/wasmagent/wasmagent/runtime"
)

// Calls beyond the host's cap wait their turn; a waiting call can be
// aborted. The cap is what bounds the memory guests take (SECURITY.md).
func TestConcurrencyCaps(t *testing.T) {
	ctx := context.Background()
	r, err := runtime.New(ctx, runtime.Options{CacheDir: testCacheDir(t), MaxConcurrentCalls: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close(ctx)
	m, err := r.CompileFile(ctx, wasmbuild.ForTest(t, "internal/testplugins/probe"))
	if err != nil {
		t.Fatal(err)
	}
	p, err := r.NewPlugin(m, runtime.PluginOptions{PoolSize: 4})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	var wg sync.WaitGroup
	for range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := execute(ctx, p, "sleep", map[string]any{"ms": 100}, nil); err != nil {
				t.Error(err)
			}
		}()
	}
	waitStats(t, r, func(s runtime.Stats) bool { return s.Waiting > 0 })
	if s := r.Stats(); s.Running > 2 {
		t.Errorf("while busy: %+v", s)
	}
	wg.Wait()
	// A call's slot is free once its instance is closed, just after the
	// call returns.
	waitStats(t, r, func(s runtime.Stats) bool { return s.Running == 0 })
	if s := r.Stats(); s.MaxRunning != 2 || s.Running != 0 || s.Waiting != 0 {
		t.Fatalf("after: %+v", s)
	}
	// A call waiting for a slot is aborted like a running one.
	hold, cancelHold := context.WithCancel(ctx)
	defer cancelHold()
	for range 2 {
		go execute(hold, p, "spin", struct{}{}, nil)
	}
	waitStats(t, r, func(s runtime.Stats) bool { return s.Running == 2 })
	wctx, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
	defer cancel()
	_, err = execute(wctx, p, "echo", map[string]any{"text": "x"}, nil)
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "waiting for a free slot (2 calls may run at once)") {
		t.Fatalf("queued call: %v", err)
	}

	// A plugin's own cap.
	one, err := r.NewPlugin(m, runtime.PluginOptions{MaxConcurrency: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer one.Close()
	cancelHold()
	waitStats(t, r, func(s runtime.Stats) bool { return s.Running == 0 })
	for range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			execute(ctx, one, "sleep", map[string]any{"ms": 30}, nil)
		}()
	}
	wg.Wait()
	if s := one.Stats(); s.MaxRunning != 1 {
		t.Fatalf("plugin cap: %+v", s)
	}
}

// waitStats waits until the runtime's stats satisfy ok.
func waitStats(t *testing.T, r *runtime.Runtime, ok func(runtime.Stats) bool) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); !ok(r.Stats()); time.Sleep(2 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("stats never got there: %+v", r.Stats())
		}
	}
}
