package atomicfile_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/wasmagent/wasmagent/internal/atomicfile"
)

// A write creates the directories, replaces the file whole, and leaves no
// temporary file; a failed one leaves nothing.
func TestWrite(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "a", "b", "entry")
	for _, content := range []string{"first", "second, longer"} {
		if err := atomicfile.Write(path, []byte(content)); err != nil {
			t.Fatal(err)
		}
		if got, err := os.ReadFile(path); err != nil || string(got) != content {
			t.Fatalf("read %q, %v; want %q", got, err, content)
		}
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Fatalf("%d files in the directory, want only the entry", len(entries))
	}
	// The target is a directory: the rename fails, and the temporary file
	// is removed.
	if err := atomicfile.Write(filepath.Join(dir, "a", "b"), []byte("x")); err == nil {
		t.Fatal("writing over a directory succeeded")
	}
	if entries, _ := os.ReadDir(filepath.Join(dir, "a")); len(entries) != 1 {
		t.Fatalf("%d files left beside the directory, want none but it", len(entries))
	}
}
