package main

import (
	"context"
	"fmt"
	"os"
	"time"

	extism "github.com/extism/go-sdk"
	"github.com/tetratelabs/wazero"

	"github.com/wasmagent/wasmagent/internal/wasmbuild"
	"github.com/wasmagent/wasmagent/runtime"
)

// compileAll compiles every module the ways the tests do, into the caches
// of this process's wazero version:
//
//   - through the runtime with its default options (the fuel rewrite,
//     the image template), into wasmbuild.TestCacheDir, with the rewrite
//     kept in its rewrite/ directory: what every test that loads a plugin
//     compiles, in a test process or in a wasmagent process it starts
//     (the options tests vary — memory limit, concurrency, image memory —
//     change neither the rewrite nor what wazero compiles);
//   - for test binaries, the same into runtime.DefaultCacheDir, which the
//     CLI's plugin call, inspect and hook dry run use, and their tests in
//     process (wasmagent itself reads another version's directory there,
//     so nothing of the user's is touched);
//   - for test binaries, as it is, through Extism go-sdk, into
//     wasmbuild.ExtismTestCacheDir: what the runtime's compatibility
//     tests compile.
func compileAll(mods []module, version string) error {
	ctx := context.Background()
	dirs := []string{wasmbuild.TestCacheDir()}
	forTests := version == wasmbuild.TestBinaryWazeroVersion
	if forTests {
		dirs = append(dirs, runtime.DefaultCacheDir())
	}
	var rts []*runtime.Runtime
	for _, dir := range dirs {
		rt, err := runtime.New(ctx, runtime.Options{CacheDir: dir})
		if err != nil {
			return err
		}
		defer rt.Close(ctx)
		rts = append(rts, rt)
	}
	var ext wazero.CompilationCache
	if forTests {
		var err error
		if ext, err = wazero.NewCompilationCacheWithDir(wasmbuild.ExtismTestCacheDir()); err != nil {
			return err
		}
		defer ext.Close(ctx)
	}
	fmt.Printf("compiling %d test modules for wazero %s (the cache directory of %s)\n", len(mods), version, who(version))
	for _, m := range mods {
		start := time.Now()
		note := ""
		for _, rt := range rts {
			if _, err := rt.CompileFile(ctx, m.path); err != nil {
				// Not the prewarm's business: a test may expect it.
				note = fmt.Sprintf(" (the runtime refuses it: %v)", err)
			}
		}
		if ext != nil {
			if err := extismCompile(ctx, ext, m.path); err != nil {
				note += fmt.Sprintf(" (Extism go-sdk refuses it: %v)", err)
			}
		}
		fmt.Printf("  %-32s %.1fs%s\n", m.name, time.Since(start).Seconds(), note)
	}
	return nil
}

func extismCompile(ctx context.Context, c wazero.CompilationCache, path string) error {
	wasm, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	p, err := extism.NewCompiledPlugin(ctx, wasmbuild.ExtismManifest(wasm, nil), wasmbuild.ExtismPluginConfig(c), nil)
	if err != nil {
		return err
	}
	return p.Close(ctx)
}

func who(version string) string {
	if version == wasmbuild.TestBinaryWazeroVersion {
		return "test binaries"
	}
	return "commands and main packages' test binaries"
}
