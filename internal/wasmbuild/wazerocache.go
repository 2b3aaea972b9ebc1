package wasmbuild

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/tetratelabs/wazero"
)

// TestBinaryWazeroVersion is the version after which wazero names its
// cache directory ("wazero-dev-amd64-linux") in every process the tests
// run: test binaries and the commands they start. go test gives the test
// binary of a package other than main no module dependencies in its
// build information, and wazero then falls back to "dev"; a command and
// the test binary of a main package read the version in go.mod instead
// ("v1.12.0"), and so a cache one fills would be invisible to the other.
// So every binary built to run the tests is linked with TestLinkFlags,
// which sets this version: testrun's test binaries, Command's commands,
// the prewarm (internal/testcache), which then fills one directory for
// all of them. Plain go test of a package other than main reads it too.
// TestTestBinaryWazeroVersion fails if test binaries stop seeing this
// version, testrun's TestBinariesReadTheTestCache and this package's
// TestCommandsReadTheTestCache if the binaries those build do not.
const TestBinaryWazeroVersion = "dev"

// wazeroVersionX is the linker flag that sets the version wazero names
// its cache directory after, as wazero's own CLI sets it.
func wazeroVersionX(version string) string {
	return "-X=github.com/tetratelabs/wazero/internal/version.version=" + version
}

// TestLinkFlags is the go build or go test -c flag for every binary built
// to run on this machine for the tests (testrun's test binaries, the
// commands tests start): its wazero reads the cache directory of
// TestBinaryWazeroVersion, and it carries no DWARF (-w) and no symbol
// table (-s), which a panic's or a race report's file:line does not
// need (they come from the runtime's own line table, which -s keeps;
// testrun's TestStrippedBinariesNameFileAndLine) and which are about a
// quarter of the CPU of linking a race test binary. Debug with a plain
// go test -c or go build.
func TestLinkFlags() string {
	return "-ldflags=-s -w " + wazeroVersionX(TestBinaryWazeroVersion)
}

// WazeroCacheSubdir is the directory, under a compilation cache directory,
// in which this process's wazero keeps compiled modules:
// "wazero-<version>-<GOARCH>-<GOOS>". It is found by asking wazero for a
// cache in a temporary directory and reading what it made there, so it
// is always wazero's own answer.
func WazeroCacheSubdir() (string, error) {
	tmp, err := os.MkdirTemp("", "wazero-version-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	c, err := wazero.NewCompilationCacheWithDir(tmp)
	if err != nil {
		return "", err
	}
	defer c.Close(context.Background())
	entries, err := os.ReadDir(tmp)
	if err != nil {
		return "", err
	}
	for _, e := range entries {
		if e.IsDir() && strings.HasPrefix(e.Name(), "wazero-") {
			return e.Name(), nil
		}
	}
	return "", fmt.Errorf("wazero made no version directory in %s", filepath.Base(tmp))
}

// WazeroVersion is the version in WazeroCacheSubdir's name.
func WazeroVersion() (string, error) {
	dir, err := WazeroCacheSubdir()
	if err != nil {
		return "", err
	}
	v := strings.TrimPrefix(dir, "wazero-")
	if i := strings.LastIndex(v, "-"); i >= 0 {
		v = v[:i] // GOOS
	}
	if i := strings.LastIndex(v, "-"); i >= 0 {
		v = v[:i] // GOARCH
	}
	return v, nil
}
