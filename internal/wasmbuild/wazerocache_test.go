package wasmbuild

import (
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

// The commands the tests start (Command) read the test binaries'
// compilation cache directory, which the prewarm fills; a command built
// plainly does not (else nothing here would need TestLinkFlags).
func TestCommandsReadTheTestCache(t *testing.T) {
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
	bin, err := Command(wazeroDirFixture)
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(bin).CombinedOutput()
	if got := strings.TrimSpace(string(out)); err != nil || got != want {
		t.Errorf("a command built by Command reads wazero's cache directory %q (%v); the test binaries read %q", got, err, want)
	}
	cmd := exec.Command(GoTool(), "run", "./"+wazeroDirFixture)
	cmd.Dir = root
	out, err = cmd.CombinedOutput()
	if got := strings.TrimSpace(string(out)); err != nil || got == want || !strings.HasPrefix(got, "wazero-") {
		t.Errorf("go run %s: wazero's cache directory %q (%v); want another than the test binaries' %q", wazeroDirFixture, got, err, want)
	}
}

// wazeroDirFixture prints the wazero cache directory of the binary it is
// built into, a command or a main package's test binary.
const wazeroDirFixture = "internal/wasmbuild/testdata/wazerodir"

// The tests' compilation cache is named for the wazero version the module
// requires, as go itself resolves it: code one wazero compiled is never
// found by another.
func TestTestCacheDirNamesWazeroVersion(t *testing.T) {
	out, err := exec.Command(GoTool(), "list", "-m", "-f", "{{.Version}}", "github.com/tetratelabs/wazero").Output()
	if err != nil {
		t.Fatal(err)
	}
	want := strings.TrimSpace(string(out))
	if got := filepath.Base(TestCacheDir()); got != want {
		t.Fatalf("TestCacheDir() = %s, want a directory named %s", TestCacheDir(), want)
	}
	for _, c := range []struct{ gomod, want string }{
		{"module m\n\nrequire github.com/tetratelabs/wazero v1.2.3\n", "v1.2.3"},
		{"module m\n\nrequire (\n\tgithub.com/a/b v0.1.0\n\tgithub.com/tetratelabs/wazero v1.12.0 // indirect\n)\n", "v1.12.0"},
		{"module m\n\nrequire github.com/tetratelabs/wazero-x v1.0.0\n", ""},
		{"module m\n", ""},
	} {
		if got := requiredVersion([]byte(c.gomod), "github.com/tetratelabs/wazero"); got != c.want {
			t.Errorf("requiredVersion(%q) = %q, want %q", c.gomod, got, c.want)
		}
	}
}
