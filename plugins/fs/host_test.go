package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmagent/wasmagent/internal/plugintest"
	"github.com/wasmagent/wasmagent/runtime"
)

// Through the real host, with the workspace granted at /work: the tools
// work, and a symbolic link planted in the workspace that points outside
// is refused by the plugin with a clear message.
func TestThroughTheHost(t *testing.T) {
	work, outside := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(work, "notes.md"), []byte("alpha\nbeta\n"), 0o644)
	os.WriteFile(filepath.Join(outside, "secret"), []byte("s3cret"), 0o644)
	os.Symlink(filepath.Join(outside, "secret"), filepath.Join(work, "escape"))
	p := plugintest.Load(t, "plugins/fs", runtime.Grants{Dirs: []runtime.Dir{{Host: work, Guest: "/work", Write: true}}})
	if r, err := plugintest.Execute(t, p, "read", `{"path":"notes.md"}`); err != nil || r.Content.TextOf() != "     1\talpha\n     2\tbeta\n" {
		t.Fatalf("read: %v %v", r, err)
	}
	if _, err := plugintest.Execute(t, p, "write", `{"path":"out/n.txt","content":"x"}`); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(work, "out/n.txt")); string(b) != "x" {
		t.Fatalf("written: %q", b)
	}
	_, err := plugintest.Execute(t, p, "read", `{"path":"escape"}`)
	if err == nil || !strings.HasPrefix(err.Error(), "path escape is outside the granted directories (/work): /work/escape is a symbolic link to "+filepath.Join(outside, "secret")) {
		t.Fatalf("symlink escape: %v", err)
	}
	if _, err := plugintest.Execute(t, p, "read", `{"path":"/etc/passwd"}`); err == nil || !strings.Contains(err.Error(), "outside the granted directories") {
		t.Fatalf("absolute path: %v", err)
	}
	if r, err := plugintest.Execute(t, p, "grep", `{"pattern":"bet"}`); err != nil || r.Content.TextOf() != "notes.md:2: beta\n" {
		t.Fatalf("grep: %v %v", r, err)
	}
}

// Errno becomes words that name the grant to add: a path under no granted
// directory, a write to a read-only grant, and no directory at all (refused
// when the plugin loads, before any call).
func TestErrorsNameTheGrant(t *testing.T) {
	data := t.TempDir()
	os.WriteFile(filepath.Join(data, "a.txt"), []byte("a"), 0o644)
	p := plugintest.Load(t, "plugins/fs", runtime.Grants{
		Dirs:   []runtime.Dir{{Host: data, Guest: "/data"}},
		Config: map[string]string{"roots": "/work,/data"},
	})
	for _, c := range []struct{ tool, args, want string }{
		{"read", `{"path":"go.mod"}`, "lstat /work/go.mod: no directory is granted at /work — grant one with --dir HOST:/work (plugin call) or dirs = [{ host = \"HOST\", guest = \"/work\" }]"},
		{"ls", `{"path":"/work"}`, "no directory is granted at /work — grant one with --dir HOST:/work"},
		{"write", `{"path":"/data/b.txt","content":"x"}`, "/data is granted read-only — grant it with --dir HOST:/data:rw (plugin call) or write = true"},
		{"edit", `{"path":"/data/a.txt","oldText":"a","newText":"b"}`, "/data is granted read-only"},
	} {
		_, err := plugintest.Execute(t, p, c.tool, c.args)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %s: err = %v, want %q", c.tool, c.args, err, c.want)
		}
	}
	_, err := plugintest.TryLoad(t, "plugins/fs", runtime.Grants{})
	if err == nil || !strings.Contains(err.Error(), "at least one directory") {
		t.Fatalf("no directory: err = %v", err)
	}
}

// A directory granted elsewhere than the roots (the default /work) is
// not silently out of reach: a path under it says that no directory is
// granted at the root, and names the config roots value that uses it;
// with that value the tools work there. (Native tests cannot see this:
// only WASI tells a path no grant covers.)
func TestRootNotGranted(t *testing.T) {
	data := t.TempDir()
	os.WriteFile(filepath.Join(data, "a.txt"), []byte("a"), 0o644)
	p := plugintest.Load(t, "plugins/fs", runtime.Grants{Dirs: []runtime.Dir{{Host: data, Guest: "/data"}}})
	for args, want := range map[string]string{
		`{"path":"/data/a.txt"}`: `path /data/a.txt is outside the roots the tools may use (/work), and no directory is granted at /work — grant one there (--dir HOST:/work with plugin call), or set config roots to /data (--set roots=/data with plugin call, roots = "/data" in the tool's config in agent.toml)`,
		`{"path":"/etc/passwd"}`: `or set config roots to the granted guest directories (--set roots=/GUEST`,
	} {
		if _, err := plugintest.Execute(t, p, "read", args); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("read %s: %v\nwant %q", args, err, want)
		}
	}
	// A grant at /w: Go's wasip1 resolves /work by plain prefix into it
	// (as /w's "ork"); the root is still under no grant, and said so.
	p = plugintest.Load(t, "plugins/fs", runtime.Grants{Dirs: []runtime.Dir{{Host: data, Guest: "/w"}}})
	if _, err := plugintest.Execute(t, p, "read", `{"path":"a.txt"}`); err == nil || !strings.Contains(err.Error(), "no directory is granted at /work — grant one with --dir HOST:/work") {
		t.Errorf("a grant at /w, a root at /work: %v", err)
	}
	p = plugintest.Load(t, "plugins/fs", runtime.Grants{Dirs: []runtime.Dir{{Host: data, Guest: "/data"}}, Config: map[string]string{"roots": "/data"}})
	if r, err := plugintest.Execute(t, p, "read", `{"path":"a.txt"}`); err != nil || r.Content.TextOf() != "     1\ta\n" {
		t.Errorf("with roots = /data: %v %v", r, err)
	}
}
