// Package atomicfile writes a file whole or not at all, for the caches
// that several processes read and write at once.
package atomicfile

import (
	"os"
	"path/filepath"
)

// Write writes b to path through a temporary file in the same directory
// (created, with its parents, as 0700) renamed into place, so that a
// reader sees the old file, the whole new one, or none. On error nothing
// is left behind. It does not sync: a cache entry lost in a crash is a
// miss, and its readers check what they read.
func Write(path string, b []byte) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	_, err = tmp.Write(b)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
	return err
}
