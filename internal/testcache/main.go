// Command testcache fills the tests' shared compilation cache
// (wasmbuild.TestCacheDir) with every plugin the tests build, compiled by a
// binary built without the race detector; its test does the same from a
// test binary, whose cache directory wazero names differently (see
// main_test.go). make test runs both before go test -race: without them,
// each test process of a cold machine compiled the same Go plugins itself,
// concurrently, in a compiler slowed by the race detector (RATIONALE.md,
// "Why does make test warm the compilation cache first?").
package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/wasmagent/wasmagent/internal/wasmbuild"
	"github.com/wasmagent/wasmagent/runtime"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "testcache:", err)
		os.Exit(1)
	}
}

func run() error {
	root, err := wasmbuild.ModuleRoot()
	if err != nil {
		return err
	}
	var pkgs []string
	for _, pattern := range []string{"plugins/*/main.go", "internal/testplugins/*/main.go"} {
		files, _ := filepath.Glob(filepath.Join(root, pattern))
		for _, f := range files {
			rel, _ := filepath.Rel(root, filepath.Dir(f))
			if filepath.Base(rel) != "command" { // built without c-shared, on purpose: not loadable
				pkgs = append(pkgs, filepath.ToSlash(rel))
			}
		}
	}
	ctx := context.Background()
	rt, err := runtime.New(ctx, runtime.Options{CacheDir: wasmbuild.TestCacheDir()})
	if err != nil {
		return err
	}
	defer rt.Close(ctx)
	for _, pkg := range pkgs {
		start := time.Now()
		path, err := wasmbuild.Cached(pkg)
		if err != nil {
			return err
		}
		if _, err := rt.CompileFile(ctx, path); err != nil {
			return fmt.Errorf("%s: %w", pkg, err)
		}
		fmt.Printf("  %-32s built and compiled in %.1fs\n", pkg, time.Since(start).Seconds())
	}
	return nil
}
