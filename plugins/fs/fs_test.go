package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmagent/wasmagent/sdk"
	"github.com/wasmagent/wasmagent/sdk/sdktest"
)

// workspace makes a directory with files and a host whose root it is.
func workspace(t *testing.T, files map[string]string) (string, *sdktest.Host) {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir, &sdktest.Host{Config: map[string]string{"roots": dir}}
}

func text(t *testing.T, r *sdk.Result, err error) string {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	return r.Content[0].Text
}

// run executes a tool and returns its text, failing the test on error.
func run(t *testing.T, h *sdktest.Host, tool string, args any) string {
	t.Helper()
	r, err := h.Execute(tool, args)
	return text(t, r, err)
}

func TestRead(t *testing.T) {
	long := strings.Repeat("0123456789\n", 3000)
	_, h := workspace(t, map[string]string{
		"a.txt": "one\ntwo\nthree\n", "crlf.txt": "x\r\ny\r\n", "empty.txt": "",
		"long.txt": long, "bin.dat": "ab\x00cd", "img.png": "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR",
		"sub/b.txt": "b",
	})
	cases := []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"path": "a.txt"}, "     1\tone\n     2\ttwo\n     3\tthree\n"},
		{map[string]any{"path": "a.txt", "offset": 2, "limit": 1}, "     2\ttwo\n[truncated: lines 2-2 of 3 shown; continue at offset 3]\n"},
		{map[string]any{"path": "crlf.txt"}, "     1\tx\n     2\ty\n"},
		{map[string]any{"path": "empty.txt"}, "empty.txt is empty"},
		{map[string]any{"path": "a.txt", "offset": 9}, "a.txt has 3 lines; offset 9 is past the end"},
	}
	for _, c := range cases {
		r, err := h.Execute("read", c.args)
		if got := text(t, r, err); got != c.want {
			t.Errorf("read %v = %q, want %q", c.args, got, c.want)
		}
	}
	// A long file stops at the byte cap and says where to continue.
	r, err := h.Execute("read", map[string]any{"path": "long.txt"})
	if got := text(t, r, err); !strings.Contains(got, "[truncated: lines 1-2000 of 3000 shown; continue at offset 2001]") && !strings.Contains(got, "of 3000 shown; continue at offset") {
		t.Errorf("long: %q", got[len(got)-100:])
	}
	if len(r.Content[0].Text) > maxReadBytes+200 {
		t.Errorf("read returned %d bytes", len(r.Content[0].Text))
	}
	// An image comes back as image content.
	r, err = h.Execute("read", map[string]any{"path": "img.png"})
	if err != nil || len(r.Content) != 2 || r.Content[1].Type != "image" || r.Content[1].MimeType != "image/png" {
		t.Errorf("image: %+v %v", r, err)
	}
	for _, c := range []struct{ path, want string }{
		{"bin.dat", "bin.dat is a binary file (5 bytes); it cannot be shown as text"},
		{"sub", "sub is a directory: use ls"},
		{"nope.txt", "nope.txt: no such file or directory"},
	} {
		if _, err := h.Execute("read", map[string]any{"path": c.path}); err == nil || err.Error() != c.want {
			t.Errorf("read %s: %v, want %q", c.path, err, c.want)
		}
	}
}

func TestWriteAndEdit(t *testing.T) {
	dir, h := workspace(t, map[string]string{"code.go": "a := 1\nb := 2\na := 1\n", "win.txt": "left\r\nright\r\n"})
	if got := run(t, h, "write", map[string]any{"path": "new/deep/f.txt", "content": "hello"}); got != "Created new/deep/f.txt (5 bytes)" {
		t.Errorf("write: %q", got)
	}
	if got := run(t, h, "write", map[string]any{"path": "new/deep/f.txt", "content": "bye"}); got != "Overwrote new/deep/f.txt (3 bytes)" {
		t.Errorf("overwrite: %q", got)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "new/deep/f.txt")); string(b) != "bye" {
		t.Errorf("file = %q", b)
	}
	_, err := h.Execute("edit", map[string]any{"path": "code.go", "oldText": "c := 3", "newText": "x"})
	if err == nil || !strings.Contains(err.Error(), "oldText was not found in code.go") {
		t.Errorf("zero matches: %v", err)
	}
	_, err = h.Execute("edit", map[string]any{"path": "code.go", "oldText": "a := 1", "newText": "x"})
	if err == nil || err.Error() != "oldText appears 2 times in code.go (at lines 1, 3); include more context to make it unique" {
		t.Errorf("two matches: %v", err)
	}
	r, err := h.Execute("edit", map[string]any{"path": "code.go", "oldText": "b := 2", "newText": "b := 20"})
	if got := text(t, r, err); got != "Edited code.go at line 2" {
		t.Errorf("edit: %q", got)
	}
	diff := r.Details.(map[string]any)["diff"].(string)
	if diff != "--- a/code.go\n+++ b/code.go\n@@ -1,4 +1,4 @@\n a := 1\n-b := 2\n+b := 20\n a := 1\n \n" {
		t.Errorf("diff:\n%s", diff)
	}
	// CRLF files are edited with \n in the model's text.
	run(t, h, "edit", map[string]any{"path": "win.txt", "oldText": "left\nright", "newText": "L\nR"})
	if b, _ := os.ReadFile(filepath.Join(dir, "win.txt")); string(b) != "L\r\nR\r\n" {
		t.Errorf("crlf edit: %q", b)
	}
}

func TestListFindGrep(t *testing.T) {
	_, h := workspace(t, map[string]string{
		"README.md": "# Title\nSee main.go.\n", "main.go": "package main\n\nfunc main() {\n\tprintln(\"TODO: x\")\n}\n",
		"pkg/a.go": "package pkg // TODO: y\n", "pkg/deep/b.go": "package deep\n", ".git/config": "TODO: hidden\n",
	})
	if got := run(t, h, "ls", nil); got != ".git/\nREADME.md\nmain.go\npkg/\n" {
		t.Errorf("ls: %q", got)
	}
	if got := run(t, h, "find", map[string]any{"pattern": "**/*.go"}); got != "main.go\npkg/a.go\npkg/deep/b.go" {
		t.Errorf("find: %q", got)
	}
	if got := run(t, h, "find", map[string]any{"pattern": "pkg/*.go"}); got != "pkg/a.go" {
		t.Errorf("find one level: %q", got)
	}
	if got := run(t, h, "grep", map[string]any{"pattern": "todo", "ignoreCase": true}); got != "main.go:4: \tprintln(\"TODO: x\")\npkg/a.go:1: package pkg // TODO: y\n" {
		t.Errorf("grep: %q", got)
	}
	if got := run(t, h, "grep", map[string]any{"pattern": "println", "context": 1, "glob": "*.go"}); got != "main.go-3- func main() {\nmain.go:4: \tprintln(\"TODO: x\")\nmain.go-5- }\n" {
		t.Errorf("grep context: %q", got)
	}
	if got := run(t, h, "grep", map[string]any{"pattern": "package", "limit": 1}); !strings.HasSuffix(got, "[stopped at 1 matching line]\n") {
		t.Errorf("grep cap: %q", got)
	}
	if _, err := h.Execute("grep", map[string]any{"pattern": "a(b"}); err == nil || !strings.Contains(err.Error(), `bad pattern "a(b"`) {
		t.Errorf("bad pattern: %v", err)
	}
}

// Paths outside the roots are refused, naming the path and the roots:
// "..", absolute paths, and symbolic links that lead out.
func TestConfinement(t *testing.T) {
	outside := t.TempDir()
	os.WriteFile(filepath.Join(outside, "secret"), []byte("s"), 0o644)
	dir, h := workspace(t, map[string]string{"in.txt": "in"})
	os.Symlink(filepath.Join(outside, "secret"), filepath.Join(dir, "abs-link"))
	os.Symlink("../"+filepath.Base(outside), filepath.Join(dir, "rel-link"))
	os.Symlink("in.txt", filepath.Join(dir, "ok-link"))
	for _, c := range []struct{ tool, path string }{
		{"read", "../secret"},
		{"read", filepath.Join(outside, "secret")},
		{"read", "abs-link"},
		{"read", "rel-link/secret"},
		{"write", "rel-link/new"},
		{"ls", "/"},
	} {
		args := map[string]any{"path": c.path}
		if c.tool == "write" {
			args["content"] = "x"
		}
		_, err := h.Execute(c.tool, args)
		want := fmt.Sprintf("path %s is outside the granted directories (%s)", c.path, dir)
		if err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%s %s: %v, want %q", c.tool, c.path, err, want)
		}
	}
	if got := run(t, h, "read", map[string]any{"path": "ok-link"}); got != "     1\tin\n" {
		t.Errorf("link inside: %q", got)
	}
	if _, err := os.Stat(filepath.Join(outside, "new")); err == nil {
		t.Error("a write escaped")
	}
}
