package runtime_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	extism "github.com/extism/go-sdk"
	"github.com/tetratelabs/wazero"

	"github.com/wasmagent/wasmagent/internal/extismcompat"
	"github.com/wasmagent/wasmagent/internal/wasmbuild"
	"github.com/wasmagent/wasmagent/runtime"
)

// make test's prewarm (internal/testcache, a command built without the
// race detector) compiles into the very cache entries a test binary like
// this one then reads: the directory wazero names after its version, and
// the key of what is compiled (the runtime's rewrite, in the tests' cache
// and in the default one the CLI's tests use; the module as it is for
// Extism go-sdk). Here the prewarm fills an empty cache with one Go
// plugin, into the one version directory that every process of the
// tests reads, and this process compiles it both ways without adding a
// single entry. If the prewarm warmed anything else, every test process of a
// cold make test would compile the Go plugins again, under the race
// detector (RATIONALE.md: "Why does make test warm the compilation cache
// first?").
func TestPrewarmFillsWhatTestsRead(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the prewarm")
	}
	const plugin = "internal/testplugins/raw"
	wasm, err := os.ReadFile(wasmbuild.ForTest(t, plugin))
	if err != nil {
		t.Fatal(err)
	}
	root, err := wasmbuild.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	// An empty user cache directory, and go's build cache as it is.
	gocache, err := exec.Command(wasmbuild.GoTool(), "env", "GOCACHE").Output()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("GOCACHE", strings.TrimSpace(string(gocache)))
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	cmd := exec.Command(wasmbuild.GoTool(), "run", "./internal/testcache", "-only", plugin)
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go run ./internal/testcache: %v\n%s", err, out)
	}
	subdir, err := wasmbuild.WazeroCacheSubdir()
	if err != nil {
		t.Fatal(err)
	}
	ours := filepath.Join(wasmbuild.TestCacheDir(), subdir)
	cli := filepath.Join(runtime.DefaultCacheDir(), subdir)
	theirs := filepath.Join(extismcompat.CacheDir(), subdir)
	// One compilation for every process of the tests: test binaries and
	// commands all read this version's directory (wasmbuild.TestLinkFlags).
	for _, cache := range []string{wasmbuild.TestCacheDir(), runtime.DefaultCacheDir(), extismcompat.CacheDir()} {
		if dirs, _ := filepath.Glob(filepath.Join(cache, "wazero-*")); len(dirs) != 1 || filepath.Base(dirs[0]) != subdir {
			t.Errorf("the prewarm filled %v; this test binary reads %s only", dirs, subdir)
		}
	}
	before := map[string]int{ours: entries(t, ours), cli: entries(t, cli), theirs: entries(t, theirs)}
	for dir, n := range before {
		if n == 0 {
			t.Fatalf("the prewarm left %s empty", dir)
		}
	}

	ctx := context.Background()
	for _, dir := range []string{wasmbuild.TestCacheDir(), ""} { // "": the CLI's, runtime.DefaultCacheDir
		r, err := runtime.New(ctx, runtime.Options{CacheDir: dir})
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close(ctx)
		if _, err := r.Compile(ctx, plugin, wasm); err != nil {
			t.Fatal(err)
		}
	}
	c, err := wazero.NewCompilationCacheWithDir(extismcompat.CacheDir())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	p, err := extism.NewCompiledPlugin(ctx, extismcompat.Manifest(wasm, nil), extismcompat.PluginConfig(c), nil)
	if err != nil {
		t.Fatal(err)
	}
	p.Close(ctx)
	for dir, n := range before {
		if got := entries(t, dir); got != n {
			t.Errorf("%s: %d entries after the prewarm, %d after this test binary compiled the same plugin: it compiled what the prewarm had not", dir, n, got)
		}
	}
}

// entries counts the files in dir (none if there is no dir).
func entries(t *testing.T, dir string) int {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return len(es)
}
