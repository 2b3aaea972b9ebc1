package main

import (
	"cmp"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/wasmagent/wasmagent/internal/extismcompat"
	"github.com/wasmagent/wasmagent/internal/wasmbuild"
	"github.com/wasmagent/wasmagent/runtime"
)

// largeModule is the compiled size from which a module compiled by a test
// itself is reported: a Go plugin compiles to some 15 MB, and costs
// seconds of CPU under the race detector; the small modules tests
// generate (hostile modules, hand-made plugins) compile to kilobytes in
// milliseconds, and may well be compiled by the tests.
const largeModule = 1 << 20

// reportMisses writes to w the compiled modules of largeModule bytes or
// more that entered the tests' caches after the last prewarm.
func reportMisses(w io.Writer) error {
	stamp, err := os.Stat(stampPath())
	if err != nil {
		fmt.Fprintf(w, "testcache: no prewarm recorded (%v): nothing to compare\n", err)
		return nil
	}
	misses, err := compiledSince(stamp.ModTime().UnixNano(), largeModule,
		filepath.Join(wasmbuild.TestCacheDir(), "wazero-*"),
		filepath.Join(extismcompat.CacheDir(), "wazero-*"),
		// Not the directory wasmagent itself uses.
		filepath.Join(runtime.DefaultCacheDir(), "wazero-"+wasmbuild.TestBinaryWazeroVersion+"-*"),
		// The fuel rewrite of a Go plugin (megabytes, seconds of CPU
		// under the race detector too), shared with wasmagent itself
		// in the default directory.
		filepath.Join(wasmbuild.TestCacheDir(), "rewrite"))
	if err != nil {
		return err
	}
	if len(misses) == 0 {
		fmt.Fprintln(w, "testcache: the tests compiled no module of 1 MiB or more themselves: the prewarm had them all")
		return nil
	}
	fmt.Fprintf(w, "testcache: the tests compiled %d modules of 1 MiB or more themselves, which the prewarm missed: a test that loads a Go plugin (or bytes made from one) the prewarm does not compile the same way (internal/testcache: modules.go, compile.go), or, under the race detector, several times the CPU; the time says which job:\n", len(misses))
	for _, m := range misses {
		fmt.Fprintln(w, "  "+m)
	}
	return nil
}

// compiledSince lists the wazero cache entries (in the directories that
// match patterns) of at least size bytes written after the time since, as
// "<size> MB <time written> <path>", largest first.
func compiledSince(since int64, size int64, patterns ...string) ([]string, error) {
	type entry struct {
		path string
		size int64
		when time.Time
	}
	var found []entry
	for _, pattern := range patterns {
		versions, _ := filepath.Glob(pattern)
		for _, v := range versions {
			err := filepath.WalkDir(v, func(path string, d fs.DirEntry, err error) error {
				if err != nil || d.IsDir() {
					return err
				}
				info, err := d.Info()
				if err != nil {
					return nil // gone meanwhile
				}
				if info.Size() >= size && info.ModTime().UnixNano() > since {
					found = append(found, entry{path, info.Size(), info.ModTime()})
				}
				return nil
			})
			if err != nil {
				return nil, err
			}
		}
	}
	slices.SortFunc(found, func(a, b entry) int {
		return cmp.Or(cmp.Compare(b.size, a.size), strings.Compare(a.path, b.path))
	})
	out := make([]string, len(found))
	for i, e := range found {
		out[i] = fmt.Sprintf("%5.1f MB %s %s", float64(e.size)/1e6, e.when.Format("15:04:05"), e.path)
	}
	return out, nil
}
