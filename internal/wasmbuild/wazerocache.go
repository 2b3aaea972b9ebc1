package wasmbuild

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/tetratelabs/wazero"
)

// TestBinaryWazeroVersion is the version wazero reads in the test binary
// of a package other than main, and names its cache directory after
// ("wazero-dev-amd64-linux"): go test gives such a binary no module
// dependencies in its build information, and wazero then falls back to
// "dev". A built command (wasmagent, go run) and the test binary of a
// main package read the wazero version from go.mod instead ("v1.12.0"),
// and so a cache filled by one is invisible to the other. The prewarm
// (internal/testcache) fills both; TestTestBinaryWazeroVersion fails if
// test binaries stop seeing this version.
const TestBinaryWazeroVersion = "dev"

// WazeroVersionLdflag is the go build flag that makes a command's wazero
// name its cache directory after version, as wazero's own CLI does: the
// prewarm is built with TestBinaryWazeroVersion to fill the test
// binaries' directory from a process without the race detector.
func WazeroVersionLdflag(version string) string {
	return "-ldflags=-X=github.com/tetratelabs/wazero/internal/version.version=" + version
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
