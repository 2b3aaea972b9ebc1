package session

import (
	"errors"
	"io"
	"os"
	"strconv"
	"strings"
)

// errNotLock refuses a file at a lock's path that wasmagent did not write.
var errNotLock = errors.New("the file exists and is not a wasmagent lock file (a regular file holding a process id); it is left as it is: move it away to use this session")

// lockPID reads a lock file: ok when it is a regular file that is empty
// (its writer died before writing) or holds one process id, as wasmagent
// writes them.
func lockPID(f *os.File) (pid int, ok bool) {
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() || st.Size() > 32 {
		return 0, false
	}
	b := make([]byte, 33)
	n, err := f.ReadAt(b, 0)
	if err != nil && err != io.EOF {
		return 0, false
	}
	s := strings.TrimSuffix(string(b[:n]), "\n")
	if s == "" {
		return 0, true
	}
	pid, err = strconv.Atoi(s)
	if err != nil || pid <= 0 || strconv.Itoa(pid) != s {
		return 0, false
	}
	return pid, true
}
