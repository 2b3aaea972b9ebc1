package wasmbuild

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// This is a test binary of a package other than main, as are nearly all
// the binaries make test runs with the race detector: its wazero must name
// its cache directory after TestBinaryWazeroVersion, the version the
// prewarm fills for them. If go test ever gives such binaries their module
// dependencies, this fails, and the prewarm would otherwise warm a
// directory no test reads.
func TestTestBinaryWazeroVersion(t *testing.T) {
	v, err := WazeroVersion()
	if err != nil {
		t.Fatal(err)
	}
	if v != TestBinaryWazeroVersion {
		t.Fatalf("wazero in a test binary names its cache after version %q, the prewarm fills %q (TestBinaryWazeroVersion)", v, TestBinaryWazeroVersion)
	}
}

// A command built with WazeroVersionLdflag names its cache directory as a
// test binary does; one built without it does not (else the prewarm would
// not need to fill two directories).
func TestWazeroVersionLdflag(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a command")
	}
	root, err := ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	want, err := WazeroCacheSubdir()
	if err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(t.TempDir(), "main.go")
	// Only wazero's public API: a file outside the module may not import
	// internal/wasmbuild.
	if err := os.WriteFile(src, []byte(`package main

import (
	"context"
	"fmt"
	"os"

	"github.com/tetratelabs/wazero"
)

func main() {
	dir, err := os.MkdirTemp("", "wazero-version-")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	c, err := wazero.NewCompilationCacheWithDir(dir)
	if err != nil {
		panic(err)
	}
	c.Close(context.Background())
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		fmt.Println(e.Name())
	}
}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		flags []string
		same  bool
	}{
		{[]string{WazeroVersionLdflag(TestBinaryWazeroVersion)}, true},
		{nil, false},
	} {
		cmd := exec.Command(GoTool(), append(append([]string{"run"}, c.flags...), src)...)
		cmd.Dir = root
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("go run %v: %v\n%s", c.flags, err, out)
		}
		got := strings.TrimSpace(string(out))
		if (got == want) != c.same || !strings.HasPrefix(got, "wazero-") {
			t.Errorf("go run %v: wazero's cache directory %q; the test binaries' is %q: want the same: %v", c.flags, got, want, c.same)
		}
	}
}
