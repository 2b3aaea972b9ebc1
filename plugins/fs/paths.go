package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"strings"
	"syscall"

	"github.com/wasmagent/wasmagent/sdk"
)

// roots are the guest directories the tools may touch: config "roots"
// (comma-separated absolute paths), default /work. The first is where
// relative paths start.
func roots(c *sdk.Call) ([]string, error) {
	v, ok := c.Config("roots")
	if !ok || strings.TrimSpace(v) == "" {
		return []string{"/work"}, nil
	}
	var out []string
	for _, r := range strings.Split(v, ",") {
		r = path.Clean(strings.TrimSpace(r))
		if !path.IsAbs(r) {
			return nil, fmt.Errorf("config roots: %q is not an absolute path", r)
		}
		out = append(out, r)
	}
	return out, nil
}

func within(p, root string) bool {
	return p == root || root == "/" || strings.HasPrefix(p, root+"/")
}

// resolve turns a path the model gave into one inside a root: relative to
// the first root; ".." that leaves a root, absolute paths elsewhere and
// symbolic links that lead out of the roots are refused, naming the path
// and the roots. The runtime refuses them too; this is the first wall,
// with a message the model can act on.
func resolve(c *sdk.Call, p string) (string, error) {
	rs, err := roots(c)
	if err != nil {
		return "", err
	}
	if p == "" {
		p = "."
	}
	abs := p
	if !path.IsAbs(p) {
		abs = path.Join(rs[0], p)
	}
	abs = path.Clean(abs)
	outside := func(what string) error {
		if hint := ungranted(rs, abs); hint != "" {
			return fmt.Errorf("path %s is outside the roots the tools may use (%s), %s", p, strings.Join(rs, ", "), hint)
		}
		return fmt.Errorf("path %s is outside the granted directories (%s)%s", p, strings.Join(rs, ", "), what)
	}
	var root string
	for _, r := range rs {
		if within(abs, r) {
			root = r
			break
		}
	}
	if root == "" {
		return "", outside("")
	}
	if _, err := os.Stat(root); errors.Is(err, fs.ErrNotExist) {
		// A granted root always exists: this one is under no grant, but
		// Go's wasip1 resolved it by plain prefix into another grant (/work
		// into /w's "ork"). Said as a root under no grant is (explain).
		return "", &fs.PathError{Op: "stat", Path: root, Err: syscall.EBADF}
	}
	// Follow symbolic links component by component, at most 40 of them.
	real, hops := root, 0
	rest := strings.Split(strings.TrimPrefix(strings.TrimPrefix(abs, root), "/"), "/")
	for len(rest) > 0 {
		part := rest[0]
		rest = rest[1:]
		if part == "" {
			continue
		}
		next := path.Join(real, part)
		fi, err := os.Lstat(next)
		if errors.Is(err, fs.ErrNotExist) {
			real = path.Join(append([]string{next}, rest...)...)
			break
		}
		if err != nil {
			return "", err
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			if hops++; hops > 40 {
				return "", fmt.Errorf("path %s: too many symbolic links", p)
			}
			target, err := os.Readlink(next)
			if err != nil {
				return "", err
			}
			if !path.IsAbs(target) {
				target = path.Join(real, target)
			}
			target = path.Clean(target)
			inRoot := false
			for _, r := range rs {
				if within(target, r) {
					inRoot = true
				}
			}
			if !inRoot {
				return "", outside(fmt.Sprintf(": %s is a symbolic link to %s", next, target))
			}
			rest = append(strings.Split(strings.TrimPrefix(target, "/"), "/"), rest...)
			real = "/"
			continue
		}
		real = next
	}
	return real, nil
}

// display is p as the model should see it: relative to the first root
// when inside it.
func display(c *sdk.Call, p string) string {
	rs, _ := roots(c)
	if len(rs) > 0 && within(p, rs[0]) && p != rs[0] {
		return strings.TrimPrefix(p, rs[0]+"/")
	}
	return p
}

// ungranted says which roots no granted directory covers (under WASI a
// stat there fails with EBADF: no preopened directory resolves it), and
// how to fix it — naming abs's top directory as the root to use when a
// directory is granted there — or is "" when every root is granted.
func ungranted(rs []string, abs string) string {
	var missing []string
	for _, r := range rs {
		// (ENOENT too: a granted root always exists, and Go's wasip1
		// resolves a path by plain prefix, so /work under a grant at /w
		// is /w's "ork", which is not there.)
		if _, err := os.Stat(r); errors.Is(err, syscall.EBADF) || errors.Is(err, fs.ErrNotExist) {
			missing = append(missing, r)
		}
	}
	if len(missing) == 0 {
		return ""
	}
	use, what := "/GUEST", "the granted guest directories"
	if top := "/" + strings.SplitN(strings.TrimPrefix(abs, "/"), "/", 2)[0]; top != "/" {
		if _, err := os.Stat(top); err == nil {
			use, what = top, top
		}
	}
	return fmt.Sprintf("and no directory is granted at %s — grant one there (--dir HOST:%s with plugin call), or set config roots to %s (--set roots=%s with plugin call, roots = %q in the tool's config in agent.toml)",
		strings.Join(missing, ", "), missing[0], what, use, use)
}
