//go:build !unix

package session

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"
)

// fileLock, where flock(2) is missing, is a file created exclusively that
// holds its holder's pid; a lock whose pid names no process is stale and
// taken over.
type fileLock struct{ path string }

func lockFile(path, session string) (*fileLock, error) {
	for range 10 {
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
		if err == nil {
			f.WriteString(strconv.Itoa(os.Getpid()) + "\n")
			f.Close()
			return &fileLock{path: path}, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return nil, fmt.Errorf("session lock: %w", err)
		}
		g, err := os.Open(path)
		if err != nil {
			continue
		}
		pid, ok := lockPID(g)
		g.Close()
		if !ok {
			return nil, fmt.Errorf("session lock %s: %w", path, errNotLock)
		}
		if pid > 0 {
			if _, err := os.FindProcess(pid); err == nil {
				return nil, &LockedError{Session: session, PID: pid}
			}
		}
		os.Remove(path) // stale: its holder is gone
	}
	return nil, fmt.Errorf("session lock %s: the lock file keeps changing", path)
}

func (l *fileLock) unlock() error { return os.Remove(l.path) }
