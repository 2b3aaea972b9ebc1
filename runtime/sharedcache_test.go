package runtime

import (
	"context"
	"crypto/sha256"
	"os"
	"path/filepath"
	goruntime "runtime"
	"testing"
	"time"

	"github.com/wasmagent/wasmagent/internal/wasmbuild"
)

// cacheFiles counts the compiled modules wazero has written in dir.
func cacheFiles(t *testing.T, dir string) int {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "wazero-*-"+goruntime.GOARCH+"-"+goruntime.GOOS, "*"))
	if err != nil {
		t.Fatal(err)
	}
	return len(files)
}

// clearCacheFiles removes the compiled modules from dir, keeping wazero's
// directories: a compilation that does not find its module in memory
// must compile it again and write it.
func clearCacheFiles(t *testing.T, dir string) {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "wazero-*", "*"))
	for _, f := range files {
		if err := os.Remove(f); err != nil {
			t.Fatal(err)
		}
	}
}

func echoCall(t *testing.T, r *Runtime, m *Module) {
	t.Helper()
	p, err := r.NewPlugin(m, PluginOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if out, err := p.Call(context.Background(), "echo", []byte("shared"), nil); err != nil || string(out) != "shared" {
		t.Fatalf("echo: %q %v", out, err)
	}
}

// Runtimes with one CacheDir share what is compiled in memory, as long as
// one of them has it open: the second finds the module without reading
// the directory, the first one's Close leaves the second's plugins
// working, and once both are closed the code is gone from memory (the
// next Runtime reads or compiles it again). A Runtime whose options
// change what is compiled (the stopper) compiles its own.
func TestRuntimesShareCompiledCode(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	wasm := wasmbuild.EchoPlugin()
	newRuntime := func(opts Options) *Runtime {
		t.Helper()
		opts.CacheDir = dir
		r, err := New(ctx, opts)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	r1 := newRuntime(Options{})
	m1, err := r1.Compile(ctx, "echo.wasm", wasm)
	if err != nil {
		t.Fatal(err)
	}
	if cacheFiles(t, dir) == 0 {
		t.Fatal("the first compilation wrote nothing")
	}
	clearCacheFiles(t, dir)

	r2 := newRuntime(Options{MaxMemoryPages: 100}) // the memory limit changes nothing compiled
	m2, err := r2.Compile(ctx, "echo.wasm", wasm)
	if err != nil {
		t.Fatal(err)
	}
	if n := cacheFiles(t, dir); n != 0 {
		t.Fatalf("the second Runtime compiled the module again (%d files written): it does not share the first one's code", n)
	}

	ctd := newRuntime(Options{stopper: "ctd"})
	if _, err := ctd.Compile(ctx, "echo.wasm", wasm); err != nil {
		t.Fatal(err)
	}
	if cacheFiles(t, dir) == 0 {
		t.Fatal("a Runtime with another stopper used the code compiled for the default one")
	}
	ctd.Close(ctx)
	clearCacheFiles(t, dir)

	if err := r1.Close(ctx); err != nil {
		t.Fatal(err)
	}
	echoCall(t, r2, m2) // r1's Close took nothing r2 uses
	if _, err := r1.Compile(ctx, "other.wasm", append(append([]byte(nil), wasm...), 0, 2, 1, 'x')); err == nil {
		t.Fatal("a closed Runtime compiled a module")
	}
	if err := r2.Close(ctx); err != nil {
		t.Fatal(err)
	}
	_ = m1

	// Every Runtime using it closed: the code lingers for the next.
	r3 := newRuntime(Options{})
	m3, err := r3.Compile(ctx, "echo.wasm", wasm)
	if err != nil {
		t.Fatal(err)
	}
	if n := cacheFiles(t, dir); n != 0 {
		t.Fatalf("a Runtime made just after the last one closed compiled the module again (%d files written)", n)
	}
	echoCall(t, r3, m3)

	// Past the linger, it is gone from memory.
	defer lingerFor.Store(lingerFor.Load())
	lingerFor.Store(int64(time.Millisecond))
	r3.Close(ctx)
	sc, err := compilationCache(dir)
	if err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(time.Millisecond) {
		sc.mu.Lock()
		_, kept := sc.lingering[lingerKey{sha256.Sum256(wasm), ""}]
		sc.mu.Unlock()
		if !kept {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the module still lingers 10 s after its linger of 1 ms")
		}
	}
	r4 := newRuntime(Options{})
	defer r4.Close(ctx)
	if _, err := r4.Compile(ctx, "echo.wasm", wasm); err != nil {
		t.Fatal(err)
	}
	if cacheFiles(t, dir) == 0 {
		t.Fatal("the code stayed in memory after every Runtime using it closed and the linger ended")
	}
}

// A cache keeps at most maxLingering modules of closed Runtimes, one
// holder per module however many Runtimes closed it.
func TestLingeringIsBounded(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	wasm := wasmbuild.EchoPlugin()
	for range 2 {
		r, err := New(ctx, Options{CacheDir: dir})
		if err != nil {
			t.Fatal(err)
		}
		for i := range maxLingering + 3 {
			// A custom section named i: different bytes, another module.
			if _, err := r.Compile(ctx, "echo.wasm", append(append([]byte(nil), wasm...), 0, 2, 1, byte('a'+i))); err != nil {
				t.Fatal(err)
			}
		}
		r.Close(ctx)
	}
	sc, err := compilationCache(dir)
	if err != nil {
		t.Fatal(err)
	}
	sc.mu.Lock()
	n := len(sc.lingering)
	sc.mu.Unlock()
	if n != maxLingering {
		t.Fatalf("%d modules lingering, want %d", n, maxLingering)
	}
}

// A cache directory removed (or replaced) while the process runs is made
// again for the next Runtime, whose compilations then work and are
// written there.
func TestRemovedCacheDirIsMadeAgain(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "cache")
	wasm := wasmbuild.EchoPlugin()
	for i := range 3 {
		r, err := New(ctx, Options{CacheDir: dir})
		if err != nil {
			t.Fatal(err)
		}
		m, err := r.Compile(ctx, "echo.wasm", wasm)
		if err != nil {
			t.Fatalf("runtime %d: %v", i, err)
		}
		echoCall(t, r, m)
		if cacheFiles(t, dir) == 0 {
			t.Fatalf("runtime %d wrote nothing in %s", i, dir)
		}
		r.Close(ctx)
		switch i {
		case 0:
			os.RemoveAll(dir)
		case 1: // wazero's directory alone
			subdirs, _ := filepath.Glob(filepath.Join(dir, "wazero-*"))
			for _, d := range subdirs {
				os.RemoveAll(d)
			}
		}
	}
}

// A Runtime loading a Go plugin (the probe) that another Runtime of the
// process has open ("memory") against one that must read it from the
// disk cache ("disk": nothing holds it, nothing lingers). Each iteration
// makes a Runtime, compiles the plugin and closes the Runtime.
func BenchmarkRuntimeLoad(b *testing.B) {
	ctx := context.Background()
	wasm, err := os.ReadFile(wasmbuild.ForTest(b, "internal/testplugins/probe"))
	if err != nil {
		b.Fatal(err)
	}
	load := func(b *testing.B, dir string) {
		r, err := New(ctx, Options{CacheDir: dir})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := r.Compile(ctx, "probe.wasm", wasm); err != nil {
			b.Fatal(err)
		}
		r.Close(ctx)
	}
	b.Run("disk", func(b *testing.B) {
		defer lingerFor.Store(lingerFor.Load())
		lingerFor.Store(0)
		dir := b.TempDir()
		load(b, dir) // fills the disk cache
		b.ResetTimer()
		for b.Loop() {
			load(b, dir)
		}
	})
	b.Run("memory", func(b *testing.B) {
		dir := b.TempDir()
		holder, err := New(ctx, Options{CacheDir: dir})
		if err != nil {
			b.Fatal(err)
		}
		defer holder.Close(ctx)
		if _, err := holder.Compile(ctx, "probe.wasm", wasm); err != nil {
			b.Fatal(err)
		}
		b.ResetTimer()
		for b.Loop() {
			load(b, dir)
		}
	})
}
