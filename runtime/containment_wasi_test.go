package runtime_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/wasmagent/wasmagent/internal/wasmbuild"
	"github.com/wasmagent/wasmagent/runtime"
)

// WASI calls a language runtime never makes, from a plugin written in
// WAT (internal/testplugins/wathostile): paths out of a read-only grant
// and into it, renames and hard links across grants, links out, a
// read-only grant renumbered over a read-write one, and fd_write,
// fd_read and prestat calls on descriptors 0–11 with wild pointers.
// Every attempt fails with a WASI error, nothing on disk changes, no
// call takes the host down, and the next call works.
func TestWASIDescriptorGames(t *testing.T) {
	path := wasmbuild.WATForTest(t, "internal/testplugins/wathostile")
	wasm, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	parent := t.TempDir()
	ro, rw := filepath.Join(parent, "ro"), filepath.Join(parent, "rw")
	os.Mkdir(ro, 0o755)
	os.Mkdir(rw, 0o755)
	os.WriteFile(filepath.Join(parent, "secret"), []byte("s3cret"), 0o644)
	os.WriteFile(filepath.Join(ro, "doc"), []byte("doc"), 0o644)
	p := pluginOf(t, "wathostile.wasm", wasm, runtime.PluginOptions{Grants: runtime.Grants{
		Dirs: []runtime.Dir{{Host: ro, Guest: "/ro"}, {Host: rw, Guest: "/rw", Write: true}},
	}})
	ctx := context.Background()
	attempts := []string{"open ../secret", "create doc read-only", "open doc for append", "mkdir read-only", "unlink read-only",
		"rename across grants", "hard link across grants", "symlink ../secret", "symlink /etc/passwd", "open ../ro/doc from rw",
		"unlink after renumber", "truncate after renumber"}
	for round := range 2 {
		if _, err := p.Call(ctx, "writes", nil, nil); err != nil {
			var ce *runtime.CallError
			if !errors.As(err, &ce) || causeOf(t, err) == "ErrHost" {
				t.Fatalf("writes: %v", err)
			}
		}
		out, err := p.Call(ctx, "escape", nil, nil)
		if err != nil {
			t.Fatalf("round %d: escape: %v", round, err)
		}
		if len(out) != len(attempts) {
			t.Fatalf("round %d: %d attempts reported, want %d", round, len(out), len(attempts))
		}
		for i, errno := range out {
			if errno == 0 {
				t.Errorf("round %d: %s succeeded", round, attempts[i])
			}
		}
	}
	if b, err := os.ReadFile(filepath.Join(ro, "doc")); err != nil || string(b) != "doc" {
		t.Errorf("the read-only file: %q %v", b, err)
	}
	for dir, want := range map[string]int{ro: 1, rw: 0, parent: 3} {
		if entries, _ := os.ReadDir(dir); len(entries) != want {
			t.Errorf("%s holds %d entries, want %d", dir, len(entries), want)
		}
	}
}
