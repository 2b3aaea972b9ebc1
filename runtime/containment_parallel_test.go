package runtime_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	goruntime "runtime"
	"sync"
	"testing"
	"time"

	"github.com/wasmagent/wasmagent/internal/wasmbuild"
	"github.com/wasmagent/wasmagent/runtime"
)

// Hostile calls in parallel with honest ones, on a runtime that admits 3
// at a time: endless loops cut by their timeout or aborted at a random
// moment, traps, and echoes. Each ends with its own cause (an echo
// returns exactly its input), no slot stays taken, and once the plugins
// and the runtime are closed no goroutine the runtime started is left.
func TestHostileCallsInParallel(t *testing.T) {
	before := goruntime.NumGoroutine()
	r, err := runtime.New(context.Background(), runtime.Options{CacheDir: testCacheDir(t), MaxConcurrentCalls: 3})
	if err != nil {
		t.Fatal(err)
	}
	load := func(name string, wasm []byte, timeout time.Duration) *runtime.Plugin {
		m, err := r.Compile(context.Background(), name, wasm)
		if err != nil {
			t.Fatal(err)
		}
		p, err := r.NewPlugin(m, runtime.PluginOptions{Name: name, PoolSize: 2, Grants: runtime.Grants{Timeout: timeout}})
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	// Only the endless loops have a short timeout, the one that cuts
	// them; an echo or a trap under -race on a busy machine can stall
	// for longer than that, and its timeout is not what it tests.
	loops := load("hostloops", hostLoops(), 100*time.Millisecond)
	echo := load("echo", wasmbuild.EchoPlugin(), 30*time.Second)
	var wg sync.WaitGroup
	var mu sync.Mutex
	causes := map[string]int{}
	for g := range 12 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(g), 7))
			for i := range 6 {
				var cause, want string
				switch k := rng.IntN(4); k {
				case 0: // an endless loop, cut by its timeout
					_, err := loops.Call(context.Background(), "spin", nil, nil)
					cause, want = causeOf(t, err), "ErrTimeout"
				case 1: // an endless loop, aborted mid-call
					ctx, cancel := context.WithCancel(context.Background())
					time.AfterFunc(time.Duration(rng.IntN(40))*time.Millisecond, cancel)
					_, err := loops.Call(ctx, "spin", nil, nil)
					cancel()
					cause, want = causeOf(t, err), "ErrAborted"
					if cause == "ErrTimeout" {
						// On a loaded machine the abort's timer can come
						// after the call's own 100 ms: either end is its own.
						want = cause
					}
				case 2:
					_, err := echo.Call(context.Background(), "trap", nil, nil)
					cause, want = causeOf(t, err), "ErrTrap"
				default:
					in := fmt.Sprintf("call %d of %d", i, g)
					out, err := echo.Call(context.Background(), "echo", []byte(in), nil)
					if err != nil || string(out) != in {
						t.Errorf("echo %q: %q %v", in, out, err)
					}
					cause, want = "ok", "ok"
				}
				if cause != want {
					t.Errorf("goroutine %d call %d: %s, want %s", g, i, cause, want)
				}
				mu.Lock()
				causes[cause]++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	t.Logf("outcomes: %v", causes)
	if causes["ErrAborted"] == 0 || causes["ErrTrap"] == 0 || causes["ok"] == 0 {
		t.Errorf("outcomes %v: every kind of call should have come up", causes)
	}
	// A call's slot is given back once its instance is closed, just after
	// the call returns.
	for deadline := time.Now().Add(30 * time.Second); r.Stats().Running > 0 && time.Now().Before(deadline); {
		time.Sleep(5 * time.Millisecond)
	}
	if s := r.Stats(); s.Running != 0 || s.Waiting != 0 || s.MaxRunning > 3 {
		t.Errorf("after the calls: %+v", s)
	}
	loops.Close()
	echo.Close()
	r.Close(context.Background())
	// Goroutines of the runtime end with it (HTTP keep-alives and the
	// test framework's own aside: a small margin).
	deadline := time.Now().Add(30 * time.Second)
	for goruntime.NumGoroutine() > before+2 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if n := goruntime.NumGoroutine(); n > before+2 {
		buf := make([]byte, 1<<16)
		t.Fatalf("%d goroutines before, %d after closing:\n%s", before, n, buf[:goruntime.Stack(buf, true)])
	}
}
