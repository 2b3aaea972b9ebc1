package wasmbuild

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// ErrNoNode says an AssemblyScript plugin cannot be built here: node or
// npm is not on PATH.
var ErrNoNode = errors.New("node or npm is not on PATH (Node.js 20 and npm build it)")

// HaveNode reports whether node and npm are on PATH.
func HaveNode() bool {
	_, errNode := exec.LookPath("node")
	_, errNpm := exec.LookPath("npm")
	return errNode == nil && errNpm == nil
}

// ASForTest builds the AssemblyScript plugin in dir (relative to the
// module root) and returns the path of its Wasm file; without node it
// skips the test, saying why.
func ASForTest(tb testing.TB, dir string) string {
	tb.Helper()
	path, err := ASCached(dir)
	if errors.Is(err, ErrNoNode) {
		tb.Skipf("skipping: %s is an AssemblyScript plugin: %v", dir, err)
	}
	if err != nil {
		tb.Fatal(err)
	}
	return path
}

// ASCached builds the AssemblyScript plugin in dir (a directory with
// package.json, package-lock.json, asconfig.json and assembly/index.ts,
// relative to the module root) and returns the path of its Wasm file in
// the user cache directory. Dependencies come from the lockfile (npm ci,
// again only when the lockfile changes); the build is skipped when no
// source file of the plugin or of sdk/assemblyscript changed. Concurrent
// test processes take turns through a lock file.
func ASCached(dir string) (string, error) {
	if !HaveNode() {
		return "", ErrNoNode
	}
	mu.Lock()
	r := built["as:"+dir]
	if r == nil {
		r = &buildResult{}
		built["as:"+dir] = r
	}
	mu.Unlock()
	r.once.Do(func() {
		r.path, r.err = npmBuild(dir, dir, "as", func(_, src, out string) error { return ASC(src, out) })
	})
	return r.path, r.err
}

// watTools is the directory whose npm wabt (pinned in its lockfile) and
// assemble.mjs assemble every WAT test plugin.
const watTools = "internal/testplugins/wat"

// WATForTest assembles dir/plugin.wat with wabt's wat2wasm (watTools'
// assemble.mjs) and returns the path of the Wasm file; without node it
// skips the test, saying why.
func WATForTest(tb testing.TB, dir string) string {
	tb.Helper()
	path, err := WATCached(dir)
	if errors.Is(err, ErrNoNode) {
		tb.Skipf("skipping: %s is assembled with npm wabt: %v", dir, err)
	}
	if err != nil {
		tb.Fatal(err)
	}
	return path
}

// WATCached assembles dir/plugin.wat as WATForTest does and returns the
// path of the Wasm file, or ErrNoNode.
func WATCached(dir string) (string, error) {
	if !HaveNode() {
		return "", ErrNoNode
	}
	mu.Lock()
	r := built["wat:"+dir]
	if r == nil {
		r = &buildResult{}
		built["wat:"+dir] = r
	}
	mu.Unlock()
	r.once.Do(func() {
		r.path, r.err = npmBuild(dir, watTools, "wat", func(tools, src, out string) error {
			return run(src, "node", filepath.Join(tools, "assemble.mjs"), "plugin.wat", out)
		})
	})
	return r.path, r.err
}

// npmBuild installs the npm dependencies of tools (the directory of the
// toolchain: dir itself for AssemblyScript) and runs build on dir into a
// cached file named for the sources' hash, under the tools' lock.
func npmBuild(dir, tools, kind string, build func(tools, src, out string) error) (string, error) {
	root, err := ModuleRoot()
	if err != nil {
		return "", err
	}
	abs, toolsAbs := filepath.Join(root, dir), filepath.Join(root, tools)
	out := filepath.Join(cacheDir(), "testplugins")
	if err := os.MkdirAll(out, 0o700); err != nil {
		return "", err
	}
	unlock, err := lockFile(filepath.Join(out, "as-"+shortHash(toolsAbs)+".lock"))
	if err != nil {
		return "", err
	}
	defer unlock()
	if err := NpmCI(toolsAbs); err != nil {
		return "", err
	}
	srcs := []string{abs, filepath.Join(root, "sdk", "assemblyscript")}
	if toolsAbs != abs {
		srcs = append(srcs, toolsAbs)
	}
	sum, err := sourceHash(srcs...)
	if err != nil {
		return "", err
	}
	path := filepath.Join(out, filepath.Base(abs)+"-"+kind+"-"+sum+".wasm")
	if _, err := os.Stat(path); err == nil {
		MarkUsed(path)
		return path, nil
	}
	tmp := filepath.Join(out, "build-"+sum+".wasm")
	defer os.Remove(tmp)
	made := ""
	if kind == "as" {
		made = madeByMake(abs, srcs)
	}
	if made != "" {
		// The same compiler, configuration and sources: the same bytes
		// (an AssemblyScript build is some 10 s of CPU).
		b, err := os.ReadFile(made)
		if err != nil {
			return "", err
		}
		if err := os.WriteFile(tmp, b, 0o600); err != nil {
			return "", err
		}
	} else if err := build(toolsAbs, abs, tmp); err != nil {
		return "", err
	}
	return path, os.Rename(tmp, path)
}

// madeByMake is the Wasm file make plugins writes for the AssemblyScript
// plugin in dir (dir/<name>.wasm, built as ASC builds it), if it is newer
// than every source file of srcs (those sourceHash reads), or "". The
// same test make plugins makes before it builds one again.
func madeByMake(dir string, srcs []string) string {
	made := filepath.Join(dir, filepath.Base(dir)+".wasm")
	fi, err := os.Stat(made)
	if err != nil || !fi.Mode().IsRegular() {
		return ""
	}
	files, err := sourceFiles(srcs...)
	if err != nil {
		return ""
	}
	for _, f := range files {
		src, err := os.Stat(f.path)
		if err != nil || !src.ModTime().Before(fi.ModTime()) {
			return ""
		}
	}
	return made
}

// NpmCI installs dir's dependencies from its package-lock.json, unless
// node_modules was installed from the same lockfile already.
func NpmCI(dir string) error {
	lock, err := os.ReadFile(filepath.Join(dir, "package-lock.json"))
	if err != nil {
		return fmt.Errorf("%s: AssemblyScript plugins pin their dependencies in a package-lock.json: %w", dir, err)
	}
	h := sha256.Sum256(lock)
	stamp := filepath.Join(dir, "node_modules", ".wasmagent-lockfile-sha256")
	if b, err := os.ReadFile(stamp); err == nil && string(b) == hex.EncodeToString(h[:]) {
		return nil
	}
	if err := run(dir, "npm", "ci", "--prefer-offline", "--no-audit", "--no-fund", "--loglevel=error"); err != nil {
		return err
	}
	return os.WriteFile(stamp, []byte(hex.EncodeToString(h[:])), 0o600)
}

// ASC compiles dir's assembly/index.ts with its asconfig.json into out,
// with the AssemblyScript compiler dir's lockfile pins.
func ASC(dir, out string) error {
	return run(dir, "node", filepath.Join("node_modules", "assemblyscript", "bin", "asc.js"),
		filepath.Join("assembly", "index.ts"), "--config", "asconfig.json", "-o", out)
}

func run(dir, name string, args ...string) error {
	cmd := exec.CommandContext(context.Background(), name, args...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stderr, &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("in %s: %s %s: %v\n%s", dir, name, strings.Join(args, " "), err, stderr.String())
	}
	return nil
}

// sourceHash hashes the files a build reads in each directory
// (sourceFiles).
func sourceHash(dirs ...string) (string, error) {
	files, err := sourceFiles(dirs...)
	if err != nil {
		return "", err
	}
	h := sha256.New()
	for _, f := range files {
		b, err := os.ReadFile(f.path)
		if err != nil {
			return "", err
		}
		fmt.Fprintf(h, "%s\x00%d\x00", f.rel, len(b))
		h.Write(b)
	}
	return hex.EncodeToString(h.Sum(nil)[:8]), nil
}

// A sourceFile is a file a build reads: its name in its directory, and
// its path.
type sourceFile struct{ rel, path string }

// sourceFiles lists the files a build reads in each directory: its .ts,
// .wat and .mjs files, asconfig.json, package.json and package-lock.json
// (node_modules, build and testdata aside), directory by directory, each
// directory's sorted.
func sourceFiles(dirs ...string) ([]sourceFile, error) {
	var all []sourceFile
	for _, d := range dirs {
		var files []sourceFile
		err := filepath.WalkDir(d, func(p string, e fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if e.IsDir() && p != d && (e.Name() == "node_modules" || e.Name() == "build" || e.Name() == "testdata") {
				return filepath.SkipDir
			}
			name := e.Name()
			if !e.IsDir() && (slices.Contains([]string{".ts", ".wat", ".mjs"}, filepath.Ext(name)) || slices.Contains([]string{"asconfig.json", "package.json", "package-lock.json"}, name)) {
				rel, _ := filepath.Rel(d, p)
				files = append(files, sourceFile{rel, p})
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		slices.SortFunc(files, func(a, b sourceFile) int { return strings.Compare(a.rel, b.rel) })
		all = append(all, files...)
	}
	return all, nil
}

func shortHash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:6])
}
