package runtime

import (
	"fmt"
	"os"
	"path/filepath"
	goruntime "runtime"
	"sync"

	"github.com/tetratelabs/wazero"
)

// Every Runtime of a process with the same CacheDir shares one wazero
// compilation cache, and so one wazero engine: a module one Runtime has
// compiled (and has not closed) is found in memory by the next, which
// neither reads its machine code from disk again nor checks its crc32.
// wazero counts the users of each compiled module in its engine: a
// Runtime's Close drops its own counts (closeModules), and the code stays
// while another Runtime still uses it. The engine's cache key is wazero's
// module ID, the sha256 of the bytes compiled with the stopper's flag, so
// Runtimes with different options never share a result they should not
// (RATIONALE.md, "Why do Runtimes of one process share a compilation
// cache?").

// sharedCaches holds the open caches by absolute directory. A cache is
// never closed: it lives as long as the process, holding only what some
// open Runtime still uses.
var sharedCaches = struct {
	sync.Mutex
	byDir map[string]*sharedCache
}{byDir: map[string]*sharedCache{}}

type sharedCache struct {
	cache wazero.CompilationCache
	dirs  map[string]os.FileInfo // the directory and wazero's own in it, as they were when the cache was opened
}

// compilationCache returns the process's cache for dir, made (and the
// directory with it) when there is none yet, or when the directory was
// removed or replaced since: wazero writes into the directory it was given,
// and fails a compilation whose code it cannot write.
func compilationCache(dir string) (wazero.CompilationCache, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("runtime: compilation cache %s: %w", dir, err)
	}
	if err := os.MkdirAll(abs, 0o700); err != nil {
		return nil, fmt.Errorf("runtime: compilation cache: %w", err)
	}
	sharedCaches.Lock()
	defer sharedCaches.Unlock()
	if c, ok := sharedCaches.byDir[abs]; ok {
		if unchanged(c.dirs) {
			return c.cache, nil
		}
	}
	c, err := wazero.NewCompilationCacheWithDir(abs)
	if err != nil {
		return nil, fmt.Errorf("runtime: compilation cache %s: %w", dir, err)
	}
	// A replaced cache is left to the Runtimes still using it; its
	// modules go when they close.
	sharedCaches.byDir[abs] = &sharedCache{cache: c, dirs: cacheDirs(abs)}
	return c, nil
}

// cacheDirs is dir and the directories wazero makes in it, one per
// wazero version and platform (wazero-VERSION-ARCH-OS), as they are now.
func cacheDirs(dir string) map[string]os.FileInfo {
	dirs := map[string]os.FileInfo{}
	names, _ := filepath.Glob(filepath.Join(dir, "wazero-*-"+goruntime.GOARCH+"-"+goruntime.GOOS))
	for _, name := range append(names, dir) {
		if fi, err := os.Stat(name); err == nil {
			dirs[name] = fi
		}
	}
	return dirs
}

// unchanged reports whether every directory of dirs is still there, the
// same directory.
func unchanged(dirs map[string]os.FileInfo) bool {
	for name, was := range dirs {
		if fi, err := os.Stat(name); err != nil || !os.SameFile(fi, was) {
			return false
		}
	}
	return len(dirs) > 0
}
