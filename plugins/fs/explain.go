package main

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"syscall"

	"github.com/wasmagent/wasmagent/sdk"
)

// explain turns the errno of a file operation into words that name the
// grant to add. Under WASI a path no granted directory covers fails with
// EBADF ("bad file number": no preopened descriptor to resolve it from),
// and a write to a read-only grant with EROFS (ENOSYS from hosts that
// follow wazero's ReadFS); neither tells an operator what to do.
func explain(c *sdk.Call, err error) error {
	var pe *fs.PathError
	if err == nil || !errors.As(err, &pe) {
		return err
	}
	if why := grantProblem(c, pe); why != "" {
		return fmt.Errorf("%s %s: %s", pe.Op, pe.Path, why)
	}
	return err
}

// grantProblem says which grant is missing when pe's errno is one of those,
// or "".
func grantProblem(c *sdk.Call, pe *fs.PathError) string {
	dir := grantOf(c, pe.Path)
	switch {
	case errors.Is(pe.Err, syscall.EBADF):
		return fmt.Sprintf("no directory is granted at %s — grant one with --dir HOST:%s (plugin call) or dirs = [{ host = \"HOST\", guest = %q }] in the tool's grants (agent.toml)", dir, dir, dir)
	case errors.Is(pe.Err, syscall.EROFS), errors.Is(pe.Err, syscall.ENOSYS):
		return fmt.Sprintf("%s is granted read-only — grant it with --dir HOST:%s:rw (plugin call) or write = true in its dirs entry (agent.toml)", dir, dir)
	}
	return ""
}

// grantOf names the directory p belongs to: the root it is in, else its
// parent.
func grantOf(c *sdk.Call, p string) string {
	rs, _ := roots(c)
	for _, r := range rs {
		if within(path.Clean(p), r) {
			return r
		}
	}
	return path.Dir(p)
}
