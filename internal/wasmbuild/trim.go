package wasmbuild

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/wasmagent/wasmagent/internal/atomicfile"
)

// The tests' caches under the user's cache directory are keyed by
// checkout and by source hash: each checkout (a worktree, a fresh clone)
// has its own test binaries, and each change of a plugin's or a
// command's sources a new build, which nothing reads once the sources
// have moved on. Nothing removed them: 11 GB after a day of six
// worktrees. TrimTestCaches removes what went unused for TrimAge, as the
// go command trims its build cache (RATIONALE.md, "Why are the tests'
// caches trimmed after five days unused?").
const (
	// TrimAge is how long an entry may go unused before it is removed.
	TrimAge = 5 * 24 * time.Hour
	// trimEvery: caches are trimmed at most this often.
	trimEvery = 24 * time.Hour
	// usedEvery: an entry's use is written (its time set to now) at
	// most this often, so that a hit does not write every time.
	usedEvery = time.Hour
)

// TestCacheDirs are the directories, under the cache root, that
// TrimTestCaches trims. In testbin each directory is one checkout's
// binaries of one flavour, in test-wazero one wazero version's compiled
// modules (which the prewarm fills again whole: a part gone would be
// compiled by the race tests themselves); each goes as a whole, when
// none of its files is younger than TrimAge. In testcommands and
// testplugins each build's files go together (family).
var TestCacheDirs = []string{"testbin", "testcommands", "testplugins", "test-wazero"}

// TrimTestCaches removes the tests' cache entries unused for TrimAge,
// if the caches were not trimmed in the last day. The runtime's own
// compilation cache (cacheDir/wazero, a user's) is not touched.
// It returns the bytes it removed.
func TrimTestCaches() (int64, error) { return trimIn(cacheDir(), time.Now(), TrimAge) }

// trimIn trims the test caches under root as of now.
func trimIn(root string, now time.Time, age time.Duration) (int64, error) {
	stamp := filepath.Join(root, "trim.txt")
	if b, err := os.ReadFile(stamp); err == nil {
		if sec, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64); err == nil {
			if since := now.Sub(time.Unix(sec, 0)); since >= 0 && since < trimEvery {
				return 0, nil
			}
		}
	}
	cutoff := now.Add(-age)
	var errs []error
	var freed int64
	for _, name := range TestCacheDirs {
		dir := filepath.Join(root, name)
		var n int64
		var err error
		if name == "testbin" || name == "test-wazero" {
			n, err = trimWhole(dir, cutoff)
		} else {
			n, err = trimFamilies(dir, cutoff)
		}
		freed += n
		errs = append(errs, err)
	}
	if err := errors.Join(errs...); err != nil {
		return freed, err
	}
	if _, err := os.Stat(root); err != nil {
		return 0, nil // no caches yet
	}
	return freed, atomicfile.Write(stamp, []byte(strconv.FormatInt(now.Unix(), 10)+"\n"))
}

// trimWhole removes each directory in dir whose newest file is older
// than cutoff.
func trimWhole(dir string, cutoff time.Time) (int64, error) {
	return trimFamiliesBy(dir, cutoff, func(name string) string { return name })
}

// newest is the latest modification time of the files under path (or
// of the file at path), and their size.
func newest(path string) (t time.Time, size int64) {
	filepath.WalkDir(path, func(_ string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		if fi, err := d.Info(); err == nil {
			size += fi.Size()
			if fi.ModTime().After(t) {
				t = fi.ModTime()
			}
		}
		return nil
	})
	return t, size
}

// trimFamilies removes, in dir, each family of files whose newest is
// older than cutoff (a directory in dir is a family of its own). A
// family is one build's files: its output, stamp, lock and published
// copies (family), so that a build in use is never taken apart — a
// stamp records its output's time, so a hit marks the lock, not them.
func trimFamilies(dir string, cutoff time.Time) (int64, error) {
	return trimFamiliesBy(dir, cutoff, family)
}

// trimFamiliesBy removes the entries of dir, grouped by family, whose
// group's newest file is older than cutoff, and returns their size.
func trimFamiliesBy(dir string, cutoff time.Time, family func(string) string) (int64, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	latest := map[string]time.Time{}
	sizes := make([]int64, len(entries))
	for i, e := range entries {
		t, size := newest(filepath.Join(dir, e.Name()))
		sizes[i] = size
		if f := family(e.Name()); t.After(latest[f]) {
			latest[f] = t
		}
	}
	var freed int64
	for i, e := range entries {
		if latest[family(e.Name())].Before(cutoff) {
			if err := os.RemoveAll(filepath.Join(dir, e.Name())); err != nil {
				return freed, err
			}
			freed += sizes[i]
		}
	}
	return freed, nil
}

// family is the build a cache file belongs to: its name up to the first
// dot, less a published copy's "-" and 16 hex digits
// (wasmagent-1a2b3c4d5e6f.build.stamp, wasmagent-1a2b3c4d5e6f.lock and
// wasmagent-1a2b3c4d5e6f-0123456789abcdef are one family).
func family(name string) string {
	if i := strings.IndexByte(name, '.'); i > 0 {
		name = name[:i]
	}
	if i := len(name) - 17; i > 0 && name[i] == '-' && isHex(name[i+1:]) {
		name = name[:i]
	}
	return name
}

func isHex(s string) bool {
	for _, c := range s {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// MarkUsed sets the modification time of each file to now if it is
// older than an hour, so that TrimTestCaches keeps what is still read.
// Not an output a stamp describes: the stamp holds its time.
func MarkUsed(paths ...string) {
	now := time.Now()
	for _, p := range paths {
		if fi, err := os.Stat(p); err == nil && now.Sub(fi.ModTime()) > usedEvery {
			os.Chtimes(p, now, now)
		}
	}
}
