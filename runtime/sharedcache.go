package runtime

import (
	"context"
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	goruntime "runtime"
	"sync"
	"sync/atomic"
	"time"

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
//
// When the last Runtime with a module open closes, the process keeps its
// machine code a while longer (lingerFor; one holder per module, at most
// maxLingering modules per cache), so that a Runtime made again soon — a
// reloaded configuration, the next command of a process that makes a
// Runtime per command, the next test — finds it in memory too.

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

	mu        sync.Mutex
	lingering map[lingerKey]*lingering
}

// lingerFor is how long a closed Runtime's modules keep their machine
// code in memory (nanoseconds; 0: not at all; a variable for tests).
var lingerFor atomic.Int64

func init() { lingerFor.Store(int64(30 * time.Second)) }

// maxLingering bounds the modules a cache keeps for closed Runtimes: past
// it, the one that would go soonest goes now.
const maxLingering = 16

// lingerKey names what was compiled: the module and the rewrite options.
type lingerKey struct {
	sum     [sha256.Size]byte
	stopper string
}

type lingering struct {
	compiled wazero.CompiledModule
	timer    *time.Timer
	until    time.Time
}

// linger keeps compiled, a module of a closed Runtime, for lingerFor,
// and then closes it; a module already kept under key is closed now in
// its favour.
func (s *sharedCache) linger(key lingerKey, compiled wazero.CompiledModule) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if old, ok := s.lingering[key]; ok {
		s.drop(key, old)
	} else if len(s.lingering) >= maxLingering {
		var first lingerKey
		var soonest *lingering
		for k, l := range s.lingering {
			if soonest == nil || l.until.Before(soonest.until) {
				first, soonest = k, l
			}
		}
		s.drop(first, soonest)
	}
	d := time.Duration(lingerFor.Load())
	if d <= 0 {
		compiled.Close(context.Background())
		return
	}
	l := &lingering{compiled: compiled, until: time.Now().Add(d)}
	l.timer = time.AfterFunc(d, func() {
		s.mu.Lock()
		if s.lingering[key] == l {
			delete(s.lingering, key)
		}
		s.mu.Unlock()
		l.compiled.Close(context.Background())
	})
	s.lingering[key] = l
}

// drop forgets l and closes its module, unless its timer has fired: then
// the timer's function closes it. s.mu is held.
func (s *sharedCache) drop(key lingerKey, l *lingering) {
	delete(s.lingering, key)
	if l.timer.Stop() {
		l.compiled.Close(context.Background())
	}
}

// compilationCache returns the process's cache for dir, made (and the
// directory with it) when there is none yet, or when the directory was
// removed or replaced since: wazero writes into the directory it was given,
// and fails a compilation whose code it cannot write.
func compilationCache(dir string) (*sharedCache, error) {
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
			return c, nil
		}
	}
	c, err := wazero.NewCompilationCacheWithDir(abs)
	if err != nil {
		return nil, fmt.Errorf("runtime: compilation cache %s: %w", dir, err)
	}
	// A replaced cache is left to the Runtimes still using it; its
	// modules go when they close.
	sc := &sharedCache{cache: c, dirs: cacheDirs(abs), lingering: map[lingerKey]*lingering{}}
	sharedCaches.byDir[abs] = sc
	return sc, nil
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
