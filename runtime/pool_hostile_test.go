package runtime_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/wasmagent/wasmagent/internal/wasmbuild"
	"github.com/wasmagent/wasmagent/runtime"
)

// A plugin whose initialization always fails, loaded with a pool and left
// idle, is not instantiated again and again in the background: before,
// the pool tried every few seconds for as long as it was loaded (with an
// initialization that loops until its timeout, 8 s of CPU in 20 s idle).
// It tries again once a call has run (instantiated on its own), and a
// call that cannot instantiate fails on its own.
func TestFailingInitIsNotRetriedWhileIdle(t *testing.T) {
	h := newHostileRuntime(t)
	wasm := module(map[string]wasmbuild.Func{"_initialize": {Body: opTrap}, "execute": {Results: []byte{wasmbuild.I32}, Body: i32c(0)}}, 1)
	m := mustCompile(t, h.Runtime, wasm)
	p, err := h.NewPlugin(m, runtime.PluginOptions{Name: "badinit", PoolSize: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	attempts := func() int { return strings.Count(h.logged(), "pool: instantiation failed") }
	// The first attempt comes when the pool's goroutine gets a CPU: wait
	// for it (a busy machine can delay it by seconds), then stay idle.
	for deadline := time.Now().Add(30 * time.Second); attempts() == 0 && time.Now().Before(deadline); {
		time.Sleep(5 * time.Millisecond)
	}
	if attempts() == 0 {
		t.Fatal("the pool did not try to instantiate within 30 s")
	}
	// The old backoff (50, 100, 200, 400 ms…) made 4 attempts in 1 s.
	time.Sleep(time.Second)
	if n := attempts(); n != 1 {
		t.Fatalf("%d background attempts in 1 s idle after the first, want 1", n)
	}
	if _, err := p.Call(context.Background(), "execute", nil, nil); err == nil || !strings.Contains(err.Error(), "unreachable") {
		t.Fatalf("the call: %v", err)
	}
	time.Sleep(500 * time.Millisecond)
	if n := attempts(); n != 1 {
		t.Fatalf("%d background attempts after a failed call, want 1", n)
	}
}
