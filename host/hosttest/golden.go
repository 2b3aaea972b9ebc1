package hosttest

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Update rewrites golden files instead of comparing with them (go test
// -update).
var Update = flag.Bool("update", false, "rewrite golden files")

// Golden compares got with the file at path, or writes it with -update. On
// a mismatch it reports the first differing line.
func Golden(t testing.TB, path string, got []byte) {
	t.Helper()
	if *Update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if bytes.Equal(got, want) {
		return
	}
	if i, g, w, differ := FirstDiff(strings.Split(string(got), "\n"), strings.Split(string(want), "\n")); differ {
		t.Fatalf("%s: line %d differs\n got: %s\nwant: %s", path, i+1, g, w)
	}
}

// FirstDiff returns the index and the two sides of the first line where got
// and want differ; a missing line counts as empty.
func FirstDiff(got, want []string) (i int, g, w string, differ bool) {
	for i = 0; i < max(len(got), len(want)); i++ {
		g, w = "", ""
		if i < len(got) {
			g = got[i]
		}
		if i < len(want) {
			w = want[i]
		}
		if g != w {
			return i, g, w, true
		}
	}
	return 0, "", "", false
}
