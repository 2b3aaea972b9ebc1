package wasmtool

import (
	"fmt"
	"os"
	"syscall"
)

// statKey is what the file system says of a file that changes when its
// content does: device, inode, size, modification and change times (in
// nanoseconds). The change time is set by the kernel on every write and
// no user can set it back.
func statKey(path string) (string, bool) {
	fi, err := os.Stat(path)
	if err != nil || !fi.Mode().IsRegular() {
		return "", false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return "", false
	}
	return fmt.Sprintf("dev=%d ino=%d size=%d mtime=%d ctime=%d", st.Dev, st.Ino, st.Size, fi.ModTime().UnixNano(), st.Ctimespec.Nano()), true
}
