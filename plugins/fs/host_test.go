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
