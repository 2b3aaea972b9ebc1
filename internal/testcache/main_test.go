package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// compiledSince lists the entries of at least the size given, written
// after the time given, under every wazero-* directory of the caches, and
// nothing else: not a small module, not an older one, not a file beside
// the version directories (the rewrite cache, the stamp).
func TestCompiledSince(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	old := time.Now().Add(-time.Hour)
	since := time.Now().Add(-time.Minute)
	write := func(path string, size int, mtime time.Time) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, make([]byte, size), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(path, mtime, mtime); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(a, "wazero-dev-amd64-linux", "big-new"), 3<<20, time.Now())
	write(filepath.Join(b, "wazero-v1.12.0-amd64-linux", "bigger-new"), 5<<20, time.Now())
	write(filepath.Join(a, "wazero-dev-amd64-linux", "big-old"), 3<<20, old)
	write(filepath.Join(a, "wazero-dev-amd64-linux", "small-new"), 1000, time.Now())
	write(filepath.Join(a, "rewrite", "big-new"), 3<<20, time.Now())
	got, err := compiledSince(since.UnixNano(), largeModule, filepath.Join(a, "wazero-*"), filepath.Join(b, "wazero-*"), filepath.Join(a, "absent", "wazero-*"))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || !strings.HasSuffix(got[0], "bigger-new") || !strings.HasSuffix(got[1], "big-new") || !strings.Contains(got[0], "5.2 MB") {
		t.Fatalf("got %q; want bigger-new (5.2 MB), then big-new", got)
	}
}
