package rtshare_test

import (
	"context"
	"log/slog"
	"testing"

	"github.com/wasmagent/wasmagent/internal/rtshare"
	"github.com/wasmagent/wasmagent/internal/wasmbuild"
	"github.com/wasmagent/wasmagent/runtime"
)

// compiles tells whether rt can still compile a module (a closed runtime
// cannot).
func compiles(rt *runtime.Runtime) bool {
	_, err := rt.Compile(context.Background(), "const.wasm", wasmbuild.ConstPlugin(map[string]string{"greet": "hi"}))
	return err == nil
}

// Without Share, every call makes a runtime of its own, and its release
// closes it: what Wire always did.
func TestFreshUnlessShared(t *testing.T) {
	ctx := context.Background()
	opts := runtime.Options{CacheDir: "off"}
	a, closeA, err := rtshare.New(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	b, closeB, err := rtshare.New(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer closeB()
	if a == b {
		t.Fatal("two runtimes made without Share are one")
	}
	closeA()
	if compiles(a) {
		t.Fatal("a runtime of its own still compiles after its release")
	}
	if !compiles(b) {
		t.Fatal("releasing one runtime closed another")
	}
}

// With Share, the same options give the same runtime, which outlives
// every release; other options, a Logger or an Observer give another.
func TestSharedByOptions(t *testing.T) {
	ctx := rtshare.Share(context.Background())
	if !rtshare.Shared(ctx) || rtshare.Shared(context.Background()) {
		t.Fatal("Shared does not tell a shared context from another")
	}
	get := func(opts runtime.Options) *runtime.Runtime {
		t.Helper()
		rt, release, err := rtshare.New(ctx, opts)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(release)
		return rt
	}
	first := get(runtime.Options{CacheDir: "off"})
	if get(runtime.Options{CacheDir: "off", MaxMemoryPages: 16384}) != first {
		t.Fatal("the default memory limit, spelled out, gives another runtime")
	}
	_, release, _ := rtshare.New(ctx, runtime.Options{CacheDir: "off"})
	release()
	if !compiles(first) {
		t.Fatal("a release closed the shared runtime")
	}
	for name, opts := range map[string]runtime.Options{
		"max memory":   {CacheDir: "off", MaxMemoryPages: 256},
		"max calls":    {CacheDir: "off", MaxConcurrentCalls: 3},
		"images":       {CacheDir: "off", ImageMemory: runtime.ImageMemoryCopy},
		"compile cost": {CacheDir: "off", MaxCompileCost: 1e9},
		"cache":        {CacheDir: t.TempDir()},
		"logger":       {CacheDir: "off", Logger: slog.New(slog.DiscardHandler)},
	} {
		if get(opts) == first {
			t.Errorf("%s: options that differ share a runtime", name)
		}
	}
	logged := runtime.Options{CacheDir: "off", Logger: slog.New(slog.DiscardHandler)}
	if get(logged) == get(logged) {
		t.Error("a runtime with a Logger is shared: its logs would reach another test's")
	}
}
