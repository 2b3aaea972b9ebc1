package runtime_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmagent/wasmagent/runtime"
)

// A plugin reaches exactly its granted directories: no symbolic link
// (planted by someone else or made by the plugin), hard link, "..", or
// absolute path takes it out, and read-only grants are read-only.
func TestFilesStayInside(t *testing.T) {
	outside := t.TempDir()
	secret := filepath.Join(outside, "secret")
	os.WriteFile(secret, []byte("s3cret"), 0o644)
	os.Mkdir(filepath.Join(outside, "dir"), 0o755)
	os.WriteFile(filepath.Join(outside, "dir", "f"), []byte("outside"), 0o644)
	rw, ro := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(rw, "mine"), []byte("mine"), 0o644)
	os.WriteFile(filepath.Join(ro, "doc"), []byte("doc"), 0o644)
	// Planted links: relative, absolute, to a directory, on both grants.
	os.Symlink(secret, filepath.Join(rw, "abs"))
	os.Symlink("../"+filepath.Base(outside)+"/secret", filepath.Join(rw, "rel"))
	os.Symlink(filepath.Join(outside, "dir"), filepath.Join(rw, "dirlink"))
	os.Symlink(secret, filepath.Join(ro, "abs"))
	os.Symlink("mine", filepath.Join(rw, "inside"))
	p := probe(t, runtime.Grants{Dirs: []runtime.Dir{{Host: rw, Guest: "/rw", Write: true}, {Host: ro, Guest: "/ro"}}}, 0)
	ctx := context.Background()
	fails := func(tool string, args map[string]any) {
		t.Helper()
		if r, err := execute(ctx, p, tool, args, nil); err == nil {
			t.Errorf("%s %v succeeded: %q", tool, args, text(r))
		}
	}
	for _, path := range []string{"/rw/abs", "/rw/rel", "/rw/dirlink/f", "/ro/abs", "/rw/../" + filepath.Base(outside) + "/secret", secret, "/etc/passwd"} {
		fails("read", map[string]any{"path": path})
		fails("write", map[string]any{"path": path, "text": "pwned"})
	}
	fails("write", map[string]any{"path": "/rw/dirlink/new", "text": "pwned"})
	// Links the plugin makes: out of the grant refused, inside fine.
	fails("fsop", map[string]any{"op": "symlink", "path": "/rw/mylink", "to": secret})
	fails("fsop", map[string]any{"op": "symlink", "path": "/rw/mylink2", "to": "../" + filepath.Base(outside)})
	fails("fsop", map[string]any{"op": "link", "path": "/rw/hard", "to": "/rw/dirlink/f"})
	// A hard link to a planted symbolic link is another symbolic link, no
	// more followable than the first.
	execute(ctx, p, "fsop", map[string]any{"op": "link", "path": "/rw/hard2", "to": "/rw/abs"}, nil)
	fails("read", map[string]any{"path": "/rw/hard2"})
	if _, err := execute(ctx, p, "fsop", map[string]any{"op": "symlink", "path": "/rw/ok", "to": "mine"}, nil); err != nil {
		t.Errorf("a link inside the grant: %v", err)
	}
	if r, err := execute(ctx, p, "read", map[string]any{"path": "/rw/inside"}, nil); err != nil || text(r) != "mine" {
		t.Errorf("following a link that stays inside: %q %v", text(r), err)
	}
	// Read-only is read-only.
	fails("write", map[string]any{"path": "/ro/doc", "text": "x"})
	fails("write", map[string]any{"path": "/ro/new", "text": "x"})
	fails("fsop", map[string]any{"op": "mkdir", "path": "/ro/d"})
	fails("fsop", map[string]any{"op": "remove", "path": "/ro/doc"})
	if r, err := execute(ctx, p, "read", map[string]any{"path": "/ro/doc"}, nil); err != nil || text(r) != "doc" {
		t.Errorf("read-only read: %q %v", text(r), err)
	}
	// Ordinary work on the read-write grant.
	if _, err := execute(ctx, p, "fsop", map[string]any{"op": "mkdir", "path": "/rw/sub"}, nil); err != nil {
		t.Error(err)
	}
	if _, err := execute(ctx, p, "write", map[string]any{"path": "/rw/sub/a", "text": "A"}, nil); err != nil {
		t.Error(err)
	}
	if r, err := execute(ctx, p, "fsop", map[string]any{"op": "list", "path": "/rw"}, nil); err != nil || !strings.Contains(text(r), "sub") {
		t.Errorf("list: %q %v", text(r), err)
	}
	// Nothing outside changed.
	if b, _ := os.ReadFile(secret); string(b) != "s3cret" {
		t.Errorf("secret = %q", b)
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 2 {
		t.Errorf("outside has %d entries", len(entries))
	}
	if b, _ := os.ReadFile(filepath.Join(ro, "doc")); string(b) != "doc" {
		t.Errorf("read-only file = %q", b)
	}
}
