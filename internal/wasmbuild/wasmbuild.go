// Package wasmbuild builds plugins from source for tests, benchmarks and
// examples: GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared; and the
// wasmagent command the end-to-end tests run as a child process. Nothing
// built is ever committed; builds land in the user cache directory, where
// go build finds them up to date on the next run.
package wasmbuild

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// Build builds the Go package in dir (a directory or a package pattern
// relative to the module root) into the Wasm file out.
func Build(ctx context.Context, dir, out string) error {
	return build(ctx, dir, out, "-buildmode=c-shared")
}

func build(ctx context.Context, dir, out string, flags ...string) error {
	root, err := ModuleRoot()
	if err != nil {
		return err
	}
	return buildIn(ctx, root, pluginEnv(), dir, out, flags...)
}

// pluginEnv is the environment of a plugin's go build.
func pluginEnv() []string {
	return append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm", "CGO_ENABLED=0")
}

func buildIn(ctx context.Context, root string, env []string, dir, out string, flags ...string) error {
	if !filepath.IsAbs(dir) && !strings.HasPrefix(dir, ".") {
		dir = "./" + dir
	}
	// -trimpath: the same source gives the same bytes in any checkout, so
	// the compilation cache (keyed by the bytes) serves every clone.
	cmd := exec.CommandContext(ctx, GoTool(), append(append([]string{"build", "-trimpath"}, flags...), "-o", out, dir)...)
	cmd.Dir = root
	cmd.Env = env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("building %s for wasip1: %v\n%s", dir, err, stderr.String())
	}
	return nil
}

var rootOnce = sync.OnceValues(func() (string, error) {
	out, err := exec.Command(GoTool(), "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %w", err)
	}
	mod := strings.TrimSpace(string(out))
	if mod == "" || mod == os.DevNull {
		return "", fmt.Errorf("not inside the wasmagent module")
	}
	return filepath.Dir(mod), nil
})

// ModuleRoot is the directory of the module's go.mod.
func ModuleRoot() (string, error) { return rootOnce() }

// GoTool is the go command: $GO, or go from PATH (make exports GO).
func GoTool() string {
	if g := os.Getenv("GO"); g != "" {
		return g
	}
	return "go"
}

// TestCacheDir is the wazero compilation cache that tests share across
// runs, so that a Go plugin compiles once per machine rather than once per
// test process. It is named for the wazero version go.mod requires: every
// test process reads wazero's directory for TestBinaryWazeroVersion
// ("dev"), and wazero keys its entries by module and CPU, not by its own
// version, so without it code one wazero compiled would be loaded by
// another (after a go.mod bump, or from a checkout on another version).
func TestCacheDir() string { return filepath.Join(cacheDir(), "test-wazero", wazeroRequired()) }

// wazeroRequired is the version of wazero this module's go.mod requires,
// or "unknown" outside the module.
var wazeroRequired = sync.OnceValue(func() string {
	root, err := ModuleRoot()
	if err != nil {
		return "unknown"
	}
	gomod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		return "unknown"
	}
	if v := requiredVersion(gomod, "github.com/tetratelabs/wazero"); v != "" {
		return v
	}
	return "unknown"
})

// requiredVersion is the version go.mod's require lines give module, or
// "" (a replace directive is not followed).
func requiredVersion(gomod []byte, module string) string {
	for _, line := range strings.Split(string(gomod), "\n") {
		f := strings.Fields(strings.TrimPrefix(strings.TrimSpace(line), "require "))
		if len(f) >= 2 && f[0] == module && strings.HasPrefix(f[1], "v") {
			return f[1]
		}
	}
	return ""
}

func cacheDir() string {
	dir, err := os.UserCacheDir()
	if err != nil {
		dir = os.TempDir()
	}
	return filepath.Join(dir, "wasmagent")
}

var (
	mu    sync.Mutex
	built = map[string]*buildResult{}
)

type buildResult struct {
	once sync.Once
	path string
	err  error
}

// ForTest builds the plugin package pkg (relative to the module root) once
// per test process and returns the path of the Wasm file; see Cached.
func ForTest(tb testing.TB, pkg string) string {
	tb.Helper()
	path, err := Cached(pkg)
	if err != nil {
		tb.Fatal(err)
	}
	return path
}

// Cached builds the plugin package pkg once per process and returns the
// path of the Wasm file, in one directory under the user cache directory.
// Test processes take turns through a lock file and build into one file
// per plugin and checkout, which go build finds up to date, skipping the
// link, unless a source changed (each test process of each run linked
// every plugin it used again before); the path handed out is replaced
// atomically, and only when the build changed. A stamp beside it skips go
// build itself while no file the build reads has changed (stamp.go).
func Cached(pkg string) (string, error) {
	pkg = cleanPkg(pkg)
	mu.Lock()
	r := built[pkg]
	if r == nil {
		r = &buildResult{}
		built[pkg] = r
	}
	mu.Unlock()
	r.once.Do(func() { r.path, r.err = buildCached(pkg) })
	return r.path, r.err
}

func buildCached(pkg string) (string, error) {
	root, err := ModuleRoot()
	if err != nil {
		return "", err
	}
	return buildCachedIn(root, filepath.Join(cacheDir(), "testplugins"), pkg)
}

// buildCachedIn is buildCached for the module at root, building into dir.
// A build whose stamp (stamp.go) says nothing it reads changed is
// skipped.
func buildCachedIn(root, dir, pkg string) (string, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	name := filepath.Base(pkg) + "-" + shortHash(root+"\x00"+pkg)
	unlock, err := lockFile(filepath.Join(dir, name+".lock"))
	if err != nil {
		return "", err
	}
	defer unlock()
	flags := []string{"-buildmode=c-shared"}
	if filepath.Base(pkg) == "command" {
		flags = nil // the test plugin that is built the wrong way
	}
	path := filepath.Join(dir, name+".wasm")
	env := pluginEnv()
	key, keyErr := sourceKey(root, pkg, flags, env)
	if _, ok := upToDate(key, path); keyErr == nil && ok {
		MarkUsed(filepath.Join(dir, name+".lock"))
		return path, nil
	}
	removeStamp(path)
	target := filepath.Join(dir, name+".build")
	seedFromMake(root, pkg, target)
	if err := buildIn(context.Background(), root, env, pkg, target, flags...); err != nil {
		return "", err
	}
	if err := publishIfChanged(target, path); err != nil {
		return "", err
	}
	if keyErr == nil {
		writeStamp(key, path, "-")
	}
	return path, nil
}

// seedFromMake copies the file make plugins wrote for the Go plugin pkg
// (pkg/<name>.wasm, built with the same flags) to target, where go build
// writes, if target is not there yet: go build then finds the file it
// would link, by its build ID, and does not link it again (it links it
// if the file is from other sources or flags).
func seedFromMake(root, pkg, target string) {
	if _, err := os.Lstat(target); !errors.Is(err, fs.ErrNotExist) {
		return
	}
	b, err := os.ReadFile(filepath.Join(root, pkg, filepath.Base(pkg)+".wasm"))
	if err != nil {
		return
	}
	_ = os.WriteFile(target, b, 0o600)
}
