package runtime_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmagent/wasmagent/host/wasmtool"
	"github.com/wasmagent/wasmagent/runtime"
)

// paddedModule is a valid module of exactly n bytes: a custom section
// (which the runtime ignores) fills it.
func paddedModule(n int) []byte {
	uleb := func(v int) []byte {
		var b []byte
		for {
			c := byte(v & 0x7f)
			v >>= 7
			if v == 0 {
				return append(b, c)
			}
			b = append(b, c|0x80)
		}
	}
	head := []byte("\x00asm\x01\x00\x00\x00")
	for payload := n - len(head) - 2; payload > 0; payload-- {
		body := append([]byte{1, 'x'}, make([]byte, payload-2)...)
		m := append(append(append(head, 0), uleb(len(body))...), body...)
		if len(m) == n {
			return m
		}
	}
	panic("no such module")
}

// A module over runtime.Options.MaxModuleBytes is refused before it is
// hashed or compiled, and a file over it before more than the cap is
// read: a file larger than it says (a device without end, /dev/zero)
// included. On the old main every size was read whole and compiled
// (and a plugin file of /dev/zero never finished loading).
func TestModuleSizeIsCapped(t *testing.T) {
	const limit = 1 << 20
	ctx := context.Background()
	r, err := runtime.New(ctx, runtime.Options{CacheDir: "off", MaxModuleBytes: limit})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close(ctx) })
	if _, err := r.Compile(ctx, "at-cap.wasm", paddedModule(limit)); err != nil {
		t.Fatalf("a module of %d bytes: %v", limit, err)
	}
	var se *runtime.ModuleSizeError
	if _, err := r.Compile(ctx, "over.wasm", paddedModule(limit+1)); !errors.As(err, &se) || !errors.Is(err, runtime.ErrModuleSize) || se.Size != limit+1 || se.Max != limit {
		t.Fatalf("a module of %d bytes: %v", limit+1, err)
	}
	dir := t.TempDir()
	over := filepath.Join(dir, "over.wasm")
	os.WriteFile(over, paddedModule(limit+1), 0o644)
	huge := filepath.Join(dir, "huge.wasm")
	if f, err := os.Create(huge); err == nil {
		f.Truncate(1 << 40) // sparse: nothing is written
		f.Close()
	}
	files := []string{over, huge}
	if _, err := os.Stat("/dev/zero"); err == nil {
		files = append(files, "/dev/zero")
	}
	for _, path := range files {
		if _, err := r.CompileFile(ctx, path); !errors.Is(err, runtime.ErrModuleSize) {
			t.Errorf("CompileFile %s: %v", path, err)
		}
		_, err := wasmtool.Load(ctx, r, path, wasmtool.Options{})
		if !errors.Is(err, runtime.ErrModuleSize) || !strings.Contains(err.Error(), "max_module_bytes") {
			t.Errorf("wasmtool.Load %s: %v", path, err)
		}
	}
	if _, err := runtime.New(ctx, runtime.Options{CacheDir: "off", MaxModuleBytes: -1}); err == nil {
		t.Error("a negative MaxModuleBytes was accepted")
	}
}
