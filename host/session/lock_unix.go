//go:build unix

package session

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"syscall"
)

// fileLock is an exclusive flock(2) on a file beside the session. The
// kernel drops it when its holder dies, however it dies, so a stale lock
// file left by kill -9 is taken over at once; the file holds the holder's
// pid only to name it in the error.
//
// A file at the lock's path that wasmagent did not write (anything but a
// regular file holding a pid, or nothing) is never truncated, written or
// removed: the lock is refused instead.
type fileLock struct {
	f    *os.File
	path string
}

func lockFile(path, session string) (*fileLock, error) {
	for range 10 {
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, 0o600)
		if errors.Is(err, fs.ErrExist) {
			f, err = os.OpenFile(path, os.O_RDWR|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
			if errors.Is(err, fs.ErrNotExist) {
				continue // its holder removed it: create it again
			}
			if err == nil {
				if _, ok := lockPID(f); !ok {
					f.Close()
					err = errNotLock
				}
			} else if errors.Is(err, syscall.ELOOP) || errors.Is(err, syscall.EISDIR) || errors.Is(err, syscall.ENXIO) {
				err = errNotLock // a symbolic link, a directory, a socket
			}
		}
		if err != nil {
			return nil, fmt.Errorf("session lock %s: %w", path, err)
		}
		if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
			pid, _ := lockPID(f)
			f.Close()
			if errors.Is(err, syscall.EWOULDBLOCK) {
				return nil, &LockedError{Session: session, PID: pid}
			}
			return nil, fmt.Errorf("session lock %s: %w", path, err)
		}
		// The holder we waited on may have removed the file between our
		// open and our flock: then we hold a lock on nothing. Retry.
		if same(f, path) {
			if _, ok := lockPID(f); ok {
				f.Truncate(0)
				f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
				return &fileLock{f: f, path: path}, nil
			}
		}
		f.Close()
	}
	return nil, fmt.Errorf("session lock %s: the lock file keeps changing", path)
}

func same(f *os.File, path string) bool {
	a, err1 := f.Stat()
	b, err2 := os.Lstat(path)
	return err1 == nil && err2 == nil && os.SameFile(a, b)
}

// unlock removes the lock file only while it is still the one this lock
// holds.
func (l *fileLock) unlock() error {
	if same(l.f, l.path) {
		os.Remove(l.path)
	}
	return l.f.Close()
}
