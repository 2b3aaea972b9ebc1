package wasmtool_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/wasmagent/wasmagent/host/wasmtool"
	"github.com/wasmagent/wasmagent/internal/wasmbuild"
	"github.com/wasmagent/wasmagent/runtime"
)

// heldLoad loads the fixture's plugin, its description cached, on a
// Runtime of its own (on the tests' shared compilation cache), held by
// start; it returns once held loads of start number held.
func heldLoad(t *testing.T, fx *cacheFixture, start *wasmtool.Start, held int) (*wasmtool.Plugin, *runtime.Runtime) {
	t.Helper()
	r, err := runtime.New(context.Background(), runtime.Options{CacheDir: wasmbuild.TestCacheDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close(context.Background()) })
	p, err := wasmtool.Load(context.Background(), r, fx.wasm, wasmtool.Options{Name: "probe", PoolSize: 1, Cache: fx.cache, Start: start})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	for start.Held() < held {
		time.Sleep(time.Millisecond)
	}
	return p, r
}

// A background load held by a Start lists its tools from the cache at
// once and runs nothing (no instance, no describe) until the Start opens;
// then it loads and its tools work.
func TestStartHoldsBackgroundLoad(t *testing.T) {
	fx := newCacheFixture(t)
	fx.load(t, runtime.Grants{}) // describes, and fills the cache
	start := wasmtool.NewStart()
	p, r := heldLoad(t, fx, start, 1)
	if len(p.Tools()) == 0 {
		t.Fatal("no tools listed from the cache")
	}
	if s := r.Stats(); s.MaxRunning != 0 {
		t.Fatalf("the held plugin ran %d calls before the start opened", s.MaxRunning)
	}
	// Telemetry's pool gauge reads a plugin at any time: 0 until loaded.
	if n := p.Pooled(); n != 0 {
		t.Fatalf("Pooled = %d before the load", n)
	}
	start.Open()
	start.Open() // again: nothing
	if err := p.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	if s := r.Stats(); s.MaxRunning == 0 {
		t.Fatal("the plugin loaded without describing itself")
	}
	if start.Held() != 0 {
		t.Fatalf("%d loads still held", start.Held())
	}
}

// A call to a held plugin opens the Start, for every plugin it holds: a
// model's tool call never waits for a request that is not coming.
func TestStartOpenedByACall(t *testing.T) {
	fx := newCacheFixture(t)
	fx.load(t, runtime.Grants{})
	start := wasmtool.NewStart()
	p, _ := heldLoad(t, fx, start, 1)
	other, _ := heldLoad(t, fx, start, 2)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	r, err := p.Tools()[0].Execute(ctx, "c", json.RawMessage(`{"text":"held"}`), nil)
	if err != nil || r.Content.TextOf() != "held" {
		t.Fatalf("%v %v", r, err)
	}
	if err := other.Wait(ctx); err != nil {
		t.Fatal(err)
	}
}

// A held plugin closed before its Start opens ends its load without
// running anything, and says so to Wait.
func TestStartHeldThenClosed(t *testing.T) {
	fx := newCacheFixture(t)
	fx.load(t, runtime.Grants{})
	start := wasmtool.NewStart()
	p, r := heldLoad(t, fx, start, 1)
	p.Close()
	if err := p.Wait(context.Background()); err == nil {
		t.Fatal("a load closed while held reports no error")
	}
	if s := r.Stats(); s.MaxRunning != 0 {
		t.Fatalf("the closed plugin ran %d calls", s.MaxRunning)
	}
}

// A call to a plugin whose background load waits for its turn behind
// other plugins' loads does not wait for them: the plugin it needs loads
// at once.
func TestNeededLoadTakesNoTurn(t *testing.T) {
	fx := newCacheFixture(t)
	fx.load(t, runtime.Grants{})
	release := wasmtool.TakeEveryTurn()
	defer release()
	p, _ := heldLoad(t, fx, nil, 0)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	r, err := p.Tools()[0].Execute(ctx, "c", json.RawMessage(`{"text":"first"}`), nil)
	if err != nil || r.Content.TextOf() != "first" {
		t.Fatalf("%v %v", r, err)
	}
}
