//go:build unix

package session

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// fileLock is an exclusive flock(2) on a file beside the session. The
// kernel drops it when its holder dies, however it dies, so a stale lock
// file left by kill -9 is taken over at once; the file holds the holder's
// pid only to name it in the error.
type fileLock struct {
	f    *os.File
	path string
}

func lockFile(path, session string) (*fileLock, error) {
	for range 10 {
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
		if err != nil {
			return nil, fmt.Errorf("session lock: %w", err)
		}
		if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
			b := make([]byte, 32)
			n, _ := f.ReadAt(b, 0)
			f.Close()
			if errors.Is(err, syscall.EWOULDBLOCK) {
				pid, _ := strconv.Atoi(strings.TrimSpace(string(b[:n])))
				return nil, &LockedError{Session: session, PID: pid}
			}
			return nil, fmt.Errorf("session lock %s: %w", path, err)
		}
		// The holder we waited on may have removed the file between our
		// open and our flock: then we hold a lock on nothing. Retry.
		if same(f, path) {
			f.Truncate(0)
			f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
			return &fileLock{f: f, path: path}, nil
		}
		f.Close()
	}
	return nil, fmt.Errorf("session lock %s: the lock file keeps changing", path)
}

func same(f *os.File, path string) bool {
	a, err1 := f.Stat()
	b, err2 := os.Stat(path)
	return err1 == nil && err2 == nil && os.SameFile(a, b)
}

func (l *fileLock) unlock() error {
	os.Remove(l.path)
	return l.f.Close()
}
