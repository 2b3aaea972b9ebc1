package wasmbuild

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Two builds of one command with nothing changed in between hand out the
// same file, which runs; the build found up to date was not published
// again (the file is the one the first build wrote).
func TestCommandBuiltOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("builds wasmagent")
	}
	first, err := buildCommand("cmd/wasmagent")
	if err != nil {
		t.Fatal(err)
	}
	before, err := os.Stat(first)
	if err != nil {
		t.Fatal(err)
	}
	second, err := buildCommand("./cmd/wasmagent")
	if err != nil {
		t.Fatal(err)
	}
	after, err := os.Stat(second)
	if err != nil {
		t.Fatal(err)
	}
	if first != second || !os.SameFile(before, after) {
		t.Fatalf("the second build handed out %s (same file: %v), the first %s", second, os.SameFile(before, after), first)
	}
	out, err := exec.Command(second, "--version").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "wasmagent") {
		t.Fatalf("%s --version: %v\n%s", second, err, out)
	}
}

// publishIfChanged leaves a file with the same bytes alone and replaces a
// different one whole, by rename: a reader holding the old file keeps it.
func TestPublishIfChanged(t *testing.T) {
	dir := t.TempDir()
	src, dst := filepath.Join(dir, "src"), filepath.Join(dir, "dst")
	os.WriteFile(src, []byte("one"), 0o600)
	if err := publishIfChanged(src, dst); err != nil {
		t.Fatal(err)
	}
	held, err := os.Open(dst)
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	a, _ := os.Stat(dst)
	if err := publishIfChanged(src, dst); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.Stat(dst); !os.SameFile(a, b) {
		t.Error("the same bytes were published again")
	}
	os.WriteFile(src, []byte("two!"), 0o600)
	if err := publishIfChanged(src, dst); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(dst); string(got) != "two!" {
		t.Errorf("dst holds %q after a change", got)
	}
	old := make([]byte, 8)
	n, _ := held.ReadAt(old, 0)
	if string(old[:n]) != "one" {
		t.Errorf("a reader of the old file read %q: it was rewritten in place", old[:n])
	}
	if left, _ := filepath.Glob(filepath.Join(dir, "*.tmp")); len(left) > 0 {
		t.Errorf("left behind: %v", left)
	}
}
