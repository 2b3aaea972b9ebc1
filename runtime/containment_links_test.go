package runtime_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmagent/wasmagent/runtime"
)

// escapes reports whether the symbolic link at path, resolved by the host
// (as the operator's shell or another program would), leads out of dir.
func escapes(t *testing.T, dir, path string) bool {
	t.Helper()
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return false // dangling or absent: leads nowhere
	}
	base, _ := filepath.EvalSymlinks(dir)
	rel, err := filepath.Rel(base, real)
	return err != nil || rel == ".." || strings.HasPrefix(rel, "../")
}

// Links a plugin makes may pass the lexical check one at a time and lead
// out when composed: "x" → "." then "y" → "x/.." (lexically "."; the
// kernel reads x as the grant itself, and its ".." is the grant's
// parent), or a link climbing with ".." whose directory is then moved
// nearer the grant's root. Whatever the plugin makes, no link in the
// grant leads out of it, for the host as for the plugin; renames across
// grants and out of read-only grants fail and change nothing.
func TestLinksComposedStayInside(t *testing.T) {
	parent := t.TempDir()
	rw, ro := filepath.Join(parent, "rw"), filepath.Join(parent, "ro")
	os.Mkdir(rw, 0o755)
	os.Mkdir(ro, 0o755)
	os.WriteFile(filepath.Join(parent, "secret"), []byte("s3cret"), 0o644)
	os.WriteFile(filepath.Join(ro, "doc"), []byte("doc"), 0o644)
	p := probe(t, runtime.Grants{Dirs: []runtime.Dir{{Host: rw, Guest: "/rw", Write: true}, {Host: ro, Guest: "/ro"}}}, 0)
	ctx := context.Background()
	op := func(op, path, to string) error {
		_, err := execute(ctx, p, "fsop", map[string]any{"op": op, "path": path, "to": to}, nil)
		return err
	}
	// Every step is tried; some are refused, and the test then asks what
	// the grant holds.
	op("symlink", "/rw/x", ".")
	op("symlink", "/rw/y", "x/..")
	op("symlink", "/rw/z", "x/../secret")
	op("mkdir", "/rw/a", "")
	op("mkdir", "/rw/a/b", "")
	op("symlink", "/rw/a/b/up", "../../secret")
	op("rename", "/rw/b", "/rw/a/b")
	op("symlink", "/rw/self", "self/..")
	op("symlink", "/rw/d", "a")
	op("symlink", "/rw/e", "d/..")
	filepath.Walk(rw, func(path string, info os.FileInfo, err error) error {
		if err == nil && info.Mode()&os.ModeSymlink != 0 && escapes(t, rw, path) {
			target, _ := os.Readlink(path)
			t.Errorf("the plugin made %s → %q, which leads out of the grant", path, target)
		}
		return nil
	})
	for _, path := range []string{"/rw/y/secret", "/rw/z", "/rw/b/up", "/rw/a/b/up", "/rw/e/secret"} {
		if r, err := execute(ctx, p, "read", map[string]any{"path": path}, nil); err == nil {
			t.Errorf("read %s: %q", path, text(r))
		}
	}
	// Links that stay below their own directory still work.
	if err := op("symlink", "/rw/a/down", "b"); err != nil {
		t.Errorf("a link down into the grant: %v", err)
	}
	// Renames between grants, and out of a read-only one.
	if err := op("rename", "/rw/doc", "/ro/doc"); err == nil {
		t.Error("a file moved out of a read-only grant")
	}
	if err := op("rename", "/ro/moved", "/ro/doc"); err == nil {
		t.Error("a rename inside a read-only grant")
	}
	os.WriteFile(filepath.Join(rw, "mine"), []byte("mine"), 0o644)
	if err := op("rename", "/ro/mine", "/rw/mine"); err == nil {
		t.Error("a file moved into a read-only grant")
	}
	if err := op("link", "/rw/doclink", "/ro/doc"); err == nil {
		t.Error("a hard link across grants")
	}
	if b, err := os.ReadFile(filepath.Join(ro, "doc")); err != nil || string(b) != "doc" {
		t.Errorf("the read-only file: %q %v", b, err)
	}
	if entries, _ := os.ReadDir(ro); len(entries) != 1 {
		t.Errorf("the read-only grant holds %d entries", len(entries))
	}
	if entries, _ := os.ReadDir(parent); len(entries) != 3 {
		t.Errorf("the grants' parent holds %d entries", len(entries))
	}
}

// Links the operator left in a writable grant are the operator's: a
// climbing one (node_modules/.bin/x → ../pkg/bin.js) or an absolute one.
// The plugin never reads through them out of the grant, however it moves
// them or links to them. But it can move them (or the directory that
// holds them) nearer the grant's root than they climb, so that they lead out for a program of the host that
// follows links later, and link to them with a link that goes down:
// SECURITY.md ("What is not promised") says so, and this test keeps it
// true. A link the plugin asks for with an absolute or ".." target fails
// with EPERM, as docs/plugins.md tells plugin authors.
func TestOperatorLinksStayTheOperators(t *testing.T) {
	parent := t.TempDir()
	rw := filepath.Join(parent, "rw")
	for _, d := range []string{"rw/node_modules/.bin", "rw/node_modules/pkg", "pkg"} {
		os.MkdirAll(filepath.Join(parent, d), 0o755)
	}
	os.WriteFile(filepath.Join(rw, "node_modules/pkg/bin.js"), []byte("inside"), 0o644)
	os.WriteFile(filepath.Join(parent, "pkg/bin.js"), []byte("outside"), 0o644)
	os.WriteFile(filepath.Join(parent, "secret"), []byte("s3cret"), 0o644)
	if err := os.Symlink("../pkg/bin.js", filepath.Join(rw, "node_modules/.bin/x")); err != nil {
		t.Skipf("symbolic links: %v", err)
	}
	os.Symlink(filepath.Join(parent, "secret"), filepath.Join(rw, "abs"))
	p := probe(t, runtime.Grants{Dirs: []runtime.Dir{{Host: rw, Guest: "/rw", Write: true}}}, 0)
	ctx := context.Background()
	op := func(op, path, to string) error {
		_, err := execute(ctx, p, "fsop", map[string]any{"op": op, "path": path, "to": to}, nil)
		return err
	}
	read := func(path string) (string, error) {
		r, err := execute(ctx, p, "read", map[string]any{"path": path}, nil)
		if err != nil {
			return "", err
		}
		return text(r), nil
	}
	if s, err := read("/rw/node_modules/.bin/x"); err != nil || s != "inside" {
		t.Fatalf("the operator's link, where the operator put it: %q %v", s, err)
	}
	for _, target := range []string{"../secret", "/rw/abs", "a/../../secret", ".."} {
		err := op("symlink", "/rw/mine", target)
		if err == nil || !strings.Contains(strings.ToLower(err.Error()), "operation not permitted") {
			t.Errorf("symlink → %q: %v, want EPERM (operation not permitted)", target, err)
		}
	}
	// Moved to the grant's root, nearer than it climbs, the operator's
	// climbing link leads out; linked to by a link that goes down, so
	// does its absolute one.
	if err := op("rename", "/rw/x", "/rw/node_modules/.bin/x"); err != nil {
		t.Fatal(err)
	}
	if err := op("symlink", "/rw/config", "abs"); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"/rw/x", "/rw/abs", "/rw/config"} {
		if s, err := read(path); err == nil || !strings.Contains(strings.ToLower(err.Error()), "operation not permitted") {
			t.Errorf("the plugin read %s, out of its grant: %q %v (want EPERM)", path, s, err)
		}
	}
	for _, path := range []string{"x", "config"} {
		if !escapes(t, rw, filepath.Join(rw, path)) {
			t.Errorf("%s stays inside for the host: SECURITY.md's limit no longer holds as written", path)
		}
	}
}
