package runtime_test

import (
	"context"
	"os"
	"sync"
	"testing"

	"github.com/wasmagent/wasmagent/internal/wasmbuild"
	"github.com/wasmagent/wasmagent/runtime"
)

// The same bytes compile once per Runtime, from any number of goroutines
// and under any name.
func TestCompileOnce(t *testing.T) {
	r, err := runtime.New(context.Background(), runtime.Options{CacheDir: "off"})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close(context.Background())
	wasm := wasmbuild.EchoPlugin()
	mods := make([]*runtime.Module, 8)
	var wg sync.WaitGroup
	for i := range mods {
		wg.Add(1)
		go func() {
			defer wg.Done()
			m, err := r.Compile(context.Background(), "copy.wasm", wasm)
			if err != nil {
				t.Error(err)
			}
			mods[i] = m
		}()
	}
	wg.Wait()
	for _, m := range mods[1:] {
		if m != mods[0] {
			t.Fatal("the same bytes compiled to two modules")
		}
	}
	other := append([]byte(nil), wasm...)
	other = append(other, 0, 6, 4, 'n', 'o', 't', 'e', 'x') // a custom section: different bytes, different module
	m, err := r.Compile(context.Background(), "other.wasm", other)
	if err != nil {
		t.Fatal(err)
	}
	if m == mods[0] || m.SHA256() == mods[0].SHA256() {
		t.Fatal("different bytes shared a module")
	}
}

// Runtimes sharing one cache directory, made, compiling, calling and
// closed at once from several goroutines, all work, and the directory then
// holds the code.
func TestSharedCacheDir(t *testing.T) {
	dir := t.TempDir()
	wasm := wasmbuild.EchoPlugin()
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r, err := runtime.New(context.Background(), runtime.Options{CacheDir: dir})
			if err != nil {
				t.Error(err)
				return
			}
			defer r.Close(context.Background())
			m, err := r.Compile(context.Background(), "echo.wasm", wasm)
			if err != nil {
				t.Error(err)
				return
			}
			p, err := r.NewPlugin(m, runtime.PluginOptions{})
			if err != nil {
				t.Error(err)
				return
			}
			defer p.Close()
			if out, err := p.Call(context.Background(), "echo", []byte("cached"), nil); err != nil || string(out) != "cached" {
				t.Errorf("%q %v", out, err)
			}
		}()
	}
	wg.Wait()
	entries, _ := os.ReadDir(dir)
	if len(entries) == 0 {
		t.Fatal("the cache directory is empty")
	}
}
