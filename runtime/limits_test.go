package runtime_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/wasmagent/wasmagent/runtime"
)

func callError(t *testing.T, err error) *runtime.CallError {
	t.Helper()
	var ce *runtime.CallError
	if !errors.As(err, &ce) {
		t.Fatalf("error %v (%T) is not a *CallError", err, err)
	}
	return ce
}

// An infinite loop is stopped at the plugin's timeout, the error says so,
// and the plugin keeps working.
func TestTimeoutStopsInfiniteLoop(t *testing.T) {
	p := probe(t, runtime.Grants{Timeout: 200 * time.Millisecond}, 1)
	_, err := execute(context.Background(), p, "spin", struct{}{}, nil)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want DeadlineExceeded", err)
	}
	ce := callError(t, err)
	if ce.Plugin != "probe" || ce.Export != "execute" || !strings.Contains(err.Error(), "200ms") {
		t.Fatalf("error does not name the plugin, export and timeout: %v", err)
	}
	if r, err := execute(context.Background(), p, "echo", map[string]any{"text": "still here"}, nil); err != nil || text(r) != "still here" {
		t.Fatalf("after a timeout: %v %v", r, err)
	}
}

// Cancelling the caller's context stops an infinite loop long before its
// timeout (the latency is measured by BenchmarkAbortLatency).
func TestAbortStopsInfiniteLoop(t *testing.T) {
	p := probe(t, runtime.Grants{Timeout: time.Minute}, 1)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := execute(ctx, p, "spin", struct{}{}, nil)
		done <- err
	}()
	time.Sleep(50 * time.Millisecond)
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v, want Canceled", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the call did not end after its context was cancelled")
	}
}

// A sleep inside the guest (WASI poll_oneoff) ends with the call.
func TestSleepEndsWithCall(t *testing.T) {
	p := probe(t, runtime.Grants{Timeout: 100 * time.Millisecond}, 1)
	done := make(chan error, 1)
	go func() {
		_, err := execute(context.Background(), p, "sleep", map[string]any{"ms": 600_000}, nil)
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("err = %v, want DeadlineExceeded", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("a 10-minute sleep held the call past its 100 ms timeout")
	}
}

func TestOutputOverLimit(t *testing.T) {
	p := probe(t, runtime.Grants{MaxOutputBytes: 64 << 10}, 0)
	if _, err := execute(context.Background(), p, "big", map[string]any{"bytes": 32 << 10}, nil); err != nil {
		t.Fatalf("output under the limit: %v", err)
	}
	_, err := execute(context.Background(), p, "big", map[string]any{"bytes": 128 << 10}, nil)
	if err == nil || !strings.Contains(err.Error(), "over the plugin's limit of 65536") {
		t.Fatalf("output over the limit: err = %v", err)
	}
}

func TestInputOverLimit(t *testing.T) {
	p := probe(t, runtime.Grants{MaxInputBytes: 1024}, 0)
	_, err := execute(context.Background(), p, "echo", map[string]any{"text": strings.Repeat("y", 2048)}, nil)
	if err == nil || !strings.Contains(err.Error(), "over the plugin's limit of 1024") {
		t.Fatalf("err = %v", err)
	}
}

// An input that does not fit the plugin's host memory is an error, not an
// empty input (as it is with Extism).
func TestInputOverHostMemory(t *testing.T) {
	const pages = 128 // 8 MiB
	p := probe(t, runtime.Grants{MemoryPages: pages, MaxInputBytes: 64 << 20}, 0)
	_, err := execute(context.Background(), p, "echo", map[string]any{"text": strings.Repeat("z", pages<<16)}, nil)
	if err == nil || !strings.Contains(err.Error(), "does not fit") {
		t.Fatalf("err = %v", err)
	}
}

func TestMemoryGrantBelowModuleMinimum(t *testing.T) {
	_, err := rt(t).NewPlugin(compile(t, "internal/testplugins/probe"), runtime.PluginOptions{Grants: runtime.Grants{MemoryPages: 1}})
	if err == nil || !strings.Contains(err.Error(), "pages of memory at start") {
		t.Fatalf("err = %v", err)
	}
}

// A plugin that allocates past its memory grant fails; the host is fine.
func TestMemoryGrantCapsGrowth(t *testing.T) {
	p := probe(t, runtime.Grants{MemoryPages: 512, MaxOutputBytes: 64 << 20}, 0) // 32 MiB
	if _, err := execute(context.Background(), p, "big", map[string]any{"bytes": 1 << 20}, nil); err != nil {
		t.Fatalf("1 MiB within a 32 MiB grant: %v", err)
	}
	_, err := execute(context.Background(), p, "big", map[string]any{"bytes": 48 << 20}, nil)
	if err == nil {
		t.Fatal("a 48 MiB output in a 32 MiB grant succeeded")
	}
	t.Log(err)
}
