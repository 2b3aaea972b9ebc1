package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	extism "github.com/extism/go-sdk"
	"github.com/tetratelabs/wazero"

	"github.com/wasmagent/wasmagent/internal/atomicfile"
	"github.com/wasmagent/wasmagent/internal/extismcompat"
	"github.com/wasmagent/wasmagent/internal/wasmbuild"
	"github.com/wasmagent/wasmagent/runtime"
)

// compileAll compiles every module the ways the tests do, into the
// caches of wasmbuild.TestBinaryWazeroVersion, which every process of
// the tests reads (this one's wazero must name its cache after it):
//
//   - through the runtime with its default options (the fuel rewrite,
//     the image template), into wasmbuild.TestCacheDir, with the rewrite
//     kept in its rewrite/ directory: what every test that loads a plugin
//     compiles, in a test process or in a wasmagent process it starts
//     (the options tests vary — memory limit, concurrency, image memory —
//     change neither the rewrite nor what wazero compiles);
//   - the same into runtime.DefaultCacheDir, which the CLI's plugin
//     call, inspect and hook dry run use, and their tests in process
//     (wasmagent itself reads another version's directory there, so
//     nothing of the user's is touched). Not compiled twice: wazero
//     keeps each compiled module in a file named after the key of what
//     it compiled, the same in any cache directory of one version, and
//     the rewrite cache's entries are keyed the same way; so the test
//     cache's entries are linked there (mirror);
//   - the mutations of wasmbuild.MutatedPlugin a runtime test loads
//     (compileMutations), the same way;
//   - as it is, through Extism go-sdk, into extismcompat.CacheDir, for
//     the plugins the runtime's compatibility tests run on go-sdk
//     (extismcompat.Plugins; they check that they run no other large
//     one).
func compileAll(mods []module) error {
	ctx := context.Background()
	fmt.Printf("compiling %d test modules into the caches of the tests (wazero-%s-…)\n", len(mods), wasmbuild.TestBinaryWazeroVersion)
	rt, err := runtime.New(ctx, runtime.Options{CacheDir: wasmbuild.TestCacheDir()})
	if err != nil {
		return err
	}
	defer rt.Close(ctx)
	ext, err := wazero.NewCompilationCacheWithDir(extismcompat.CacheDir())
	if err != nil {
		return err
	}
	defer ext.Close(ctx)
	for _, m := range mods {
		start := time.Now()
		note := ""
		if _, err := rt.CompileFile(ctx, m.path); err != nil {
			// Not the prewarm's business: a test may expect it.
			note = fmt.Sprintf(" (the runtime refuses it: %v)", err)
		}
		took := time.Since(start)
		if slices.Contains(extismcompat.Plugins, m.name) {
			start = time.Now()
			if err := extismCompile(ctx, ext, m.path); err != nil {
				note += fmt.Sprintf(" (Extism go-sdk refuses it: %v)", err)
			}
			note = fmt.Sprintf(", go-sdk %.1fs", time.Since(start).Seconds()) + note
		}
		fmt.Printf("  %-32s %.1fs%s\n", m.name, took.Seconds(), note)
	}
	if err := compileMutations(ctx, rt, mods); err != nil {
		return err
	}
	return warmDefault()
}

// compileMutations compiles, through rt, the mutations of
// wasmbuild.MutatedPlugin that runtime's
// TestMutatedPluginsNeverTakeTheHostDown loads (wasmbuild.PluginMutations,
// the same bytes there and here): those that load are Go plugins
// compiled, which the race run would otherwise compile itself.
func compileMutations(ctx context.Context, rt *runtime.Runtime, mods []module) error {
	i := slices.IndexFunc(mods, func(m module) bool { return m.name == wasmbuild.MutatedPlugin })
	if i < 0 {
		return nil
	}
	wasm, err := os.ReadFile(mods[i].path)
	if err != nil {
		return err
	}
	for j, mutation := range wasmbuild.PluginMutations(wasm, wasmbuild.MutationCount) {
		start := time.Now()
		note := ""
		if _, err := rt.Compile(ctx, fmt.Sprintf("%s mutation %d", wasmbuild.MutatedPlugin, j), mutation); err != nil {
			note = " (refused, as most are)"
		}
		fmt.Printf("  %-32s %.1fs%s\n", fmt.Sprintf("%s mutation %d", wasmbuild.MutatedPlugin, j), time.Since(start).Seconds(), note)
	}
	return nil
}

// warmDefault fills runtime.DefaultCacheDir for mods by linking the test
// cache's entries there (runtime's TestPrewarmFillsWhatTestsRead checks
// that a test binary compiling through it then finds them).
func warmDefault() error {
	sub, err := wasmbuild.WazeroCacheSubdir()
	if err != nil {
		return err
	}
	for _, d := range []string{sub, "rewrite"} {
		if err := mirror(filepath.Join(wasmbuild.TestCacheDir(), d), filepath.Join(runtime.DefaultCacheDir(), d)); err != nil {
			return err
		}
	}
	return nil
}

// mirror hard-links every file of from into to that to lacks (copies it
// where links fail, across file systems).
func mirror(from, to string) error {
	entries, err := os.ReadDir(from)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(to, 0o700); err != nil {
		return err
	}
	for _, e := range entries {
		if !e.Type().IsRegular() {
			continue
		}
		src, dst := filepath.Join(from, e.Name()), filepath.Join(to, e.Name())
		if _, err := os.Lstat(dst); err == nil {
			continue
		}
		if os.Link(src, dst) == nil {
			continue
		}
		b, err := os.ReadFile(src)
		if err != nil {
			return err
		}
		if err := atomicfile.Write(dst, b); err != nil {
			return err
		}
	}
	return nil
}

func extismCompile(ctx context.Context, c wazero.CompilationCache, path string) error {
	wasm, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	p, err := extism.NewCompiledPlugin(ctx, extismcompat.Manifest(wasm, nil), extismcompat.PluginConfig(c), nil)
	if err != nil {
		return err
	}
	return p.Close(ctx)
}
