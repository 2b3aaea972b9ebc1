package wasmbuild

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// A stamp lets a test process skip go build when nothing it would read
// has changed. go build finds an unchanged plugin up to date too, but
// only after loading every package it imports: ~0.4 s of CPU per plugin
// per test process, in every package that builds plugins. The stamp,
// written beside the output after a build, holds the key of everything
// that build read (sourceKey) and the output's size and time; a later
// build with the same key and the output as the stamp left it is skipped.
// Any doubt is a build: a key that cannot be computed, a stamp that
// cannot be read, an output touched since.

// sourceKey hashes what go build reads to build pkg (a directory relative
// to the module root) with args and env: every file of the package and of
// each package of this module it imports, directly or not (any build
// tags: a file is hashed whether or not it is built); below a package
// that embeds files, what its patterns name; go.mod and go.sum (which pin
// every other module); the go command (path, size, time); the args; and
// every GO* and CGO* variable of env. A module with a replace directive,
// a workspace or a vendor directory has no key: go would read files the
// key does not follow. Test files are left out: go build never
// reads them, and so are files of no source type (go help filetype)
// that no embed pattern names.
func sourceKey(root, pkg string, args, env []string) (string, error) {
	pkg = cleanPkg(pkg)
	if filepath.IsAbs(pkg) || pkg == ".." || strings.HasPrefix(pkg, "../") || strings.Contains(pkg, "...") {
		return "", fmt.Errorf("%s: not a package directory inside the module", pkg)
	}
	h := sha256.New()
	fmt.Fprintf(h, "wasmbuild stamp 1\x00%q\x00", args)
	vars := slices.Clone(env)
	slices.Sort(vars)
	for _, kv := range vars {
		if strings.HasPrefix(kv, "GO") || strings.HasPrefix(kv, "CGO") {
			fmt.Fprintf(h, "env %s\x00", kv)
		}
	}
	tool, err := exec.LookPath(GoTool())
	if err != nil {
		return "", err
	}
	fi, err := os.Stat(tool)
	if err != nil {
		return "", err
	}
	fmt.Fprintf(h, "go %s %d %d\x00", tool, fi.Size(), fi.ModTime().UnixNano())
	// go env -w writes GOFLAGS, GOEXPERIMENT, CGO_ENABLED… into this file,
	// where the variables above do not show them.
	goenv, err := os.ReadFile(goEnvFile(env))
	if err != nil && !os.IsNotExist(err) {
		return "", err
	}
	fmt.Fprintf(h, "goenv %d\x00", len(goenv))
	h.Write(goenv)
	modPath := ""
	for _, name := range []string{"go.mod", "go.sum"} {
		b, err := os.ReadFile(filepath.Join(root, name))
		if err != nil && !os.IsNotExist(err) {
			return "", err
		}
		fmt.Fprintf(h, "%s %d %t\x00", name, len(b), err == nil)
		h.Write(b)
		if name == "go.mod" {
			if modPath = modulePath(b); modPath == "" {
				return "", fmt.Errorf("%s: no module line", filepath.Join(root, name))
			}
			if bytes.Contains(b, []byte("=>")) {
				return "", fmt.Errorf("%s: a replace directive (a local directory's files are not followed)", filepath.Join(root, name))
			}
		}
	}
	// go looks for a workspace from the build's directory up, and reads
	// a vendor directory instead of the module cache: the key follows
	// neither, so either means no stamp (a build every time).
	for dir := root; ; dir = filepath.Dir(dir) {
		if _, err := os.Stat(filepath.Join(dir, "go.work")); err == nil {
			return "", fmt.Errorf("%s: a workspace", filepath.Join(dir, "go.work"))
		}
		if filepath.Dir(dir) == dir {
			break
		}
	}
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "GOWORK="); ok && v != "" && v != "off" {
			return "", fmt.Errorf("GOWORK=%s: a workspace", v)
		}
	}
	if isDir(filepath.Join(root, "vendor")) {
		return "", fmt.Errorf("%s: a vendor directory", root)
	}
	seen := map[string]bool{}
	queue := []string{pkg}
	for len(queue) > 0 {
		dir := queue[0]
		queue = queue[1:]
		if seen[dir] {
			continue
		}
		seen[dir] = true
		imports, err := hashPackage(h, root, dir)
		if err != nil {
			return "", err
		}
		for _, imp := range imports {
			if rel, ok := strings.CutPrefix(imp, modPath); ok && (rel == "" || rel[0] == '/') {
				queue = append(queue, cleanPkg("."+rel))
			}
		}
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// hashPackage writes the files of the package in dir (relative to root)
// to h and returns the paths its Go files import.
func hashPackage(h interface{ Write([]byte) (int, error) }, root, dir string) ([]string, error) {
	abs := filepath.Join(root, filepath.FromSlash(dir))
	entries, err := os.ReadDir(abs)
	if err != nil {
		return nil, err
	}
	var imports, embeds []string
	for _, e := range entries {
		name := e.Name()
		if strings.HasSuffix(name, "_test.go") || !sourceExt[filepath.Ext(name)] {
			continue
		}
		b, err := os.ReadFile(filepath.Join(abs, name))
		if err != nil {
			if isDir(filepath.Join(abs, name)) {
				continue
			}
			return nil, err
		}
		fmt.Fprintf(h, "file %s/%s %d\x00", dir, name, len(b))
		h.Write(b)
		if !strings.HasSuffix(name, ".go") {
			continue
		}
		embeds = append(embeds, embedPatterns(b)...)
		f, err := parser.ParseFile(token.NewFileSet(), name, b, parser.ImportsOnly)
		if err != nil {
			// go build will say what is wrong; the key only has to change
			// with the file, which it does.
			continue
		}
		for _, imp := range f.Imports {
			if p, err := strconv.Unquote(imp.Path.Value); err == nil {
				imports = append(imports, p)
			}
		}
	}
	// What the embed patterns name below the package's own directory:
	// the files and trees they match (a pattern not understood: the
	// whole tree).
	var roots []string
	for _, pat := range embeds {
		m, err := filepath.Glob(filepath.Join(abs, filepath.FromSlash(pat)))
		if err != nil || pat == "" {
			roots = []string{abs}
			break
		}
		roots = append(roots, m...)
	}
	for _, top := range roots {
		err := filepath.WalkDir(top, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || filepath.Dir(path) == abs {
				return err
			}
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(abs, path)
			fmt.Fprintf(h, "embedded %s/%s %d\x00", dir, filepath.ToSlash(rel), len(b))
			h.Write(b)
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return imports, nil
}

// embedPatterns returns the patterns of src's //go:embed directives, ""
// for one it cannot read (a quoted pattern with a space).
func embedPatterns(src []byte) []string {
	if !bytes.Contains(src, []byte("go:embed")) {
		return nil
	}
	var pats []string
	for line := range strings.SplitSeq(string(src), "\n") {
		rest, ok := strings.CutPrefix(strings.TrimSpace(line), "//go:embed")
		if !ok {
			continue
		}
		for _, f := range strings.Fields(rest) {
			f = strings.TrimPrefix(f, "all:")
			if f != "" && (f[0] == '"' || f[0] == '`') {
				u, err := strconv.Unquote(f)
				if err != nil {
					u = ""
				}
				f = strings.TrimPrefix(u, "all:")
			}
			pats = append(pats, f)
		}
	}
	return pats
}

// sourceExt are the extensions of the files go build reads in a
// package's directory (go help filetype), embedded files aside.
var sourceExt = map[string]bool{
	".go": true, ".s": true, ".S": true, ".sx": true, ".syso": true,
	".c": true, ".cc": true, ".cxx": true, ".cpp": true, ".m": true,
	".h": true, ".hh": true, ".hpp": true, ".hxx": true,
	".f": true, ".F": true, ".for": true, ".f90": true,
	".swig": true, ".swigcxx": true,
}

func isDir(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.IsDir()
}

// modulePath is the path of go.mod's module line ("" if it has none).
func modulePath(gomod []byte) string {
	for line := range strings.SplitSeq(string(gomod), "\n") {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(line), "module"); ok && rest != "" && (rest[0] == ' ' || rest[0] == '\t') {
			p := strings.TrimSpace(rest)
			if u, err := strconv.Unquote(p); err == nil {
				p = u
			}
			return p
		}
	}
	return ""
}

// stampLine is what a stamp holds: the key, the output as it was left,
// and what the builder noted about it (no spaces or newlines).
func stampLine(key, out, note string) (string, bool) {
	fi, err := os.Stat(out)
	if err != nil || !fi.Mode().IsRegular() {
		return "", false
	}
	return fmt.Sprintf("%s %d %d %s\n", key, fi.Size(), fi.ModTime().UnixNano(), note), true
}

// upToDate reports whether out was built from key, as its stamp says,
// and returns the note the stamp holds.
func upToDate(key, out string) (string, bool) {
	b, err := os.ReadFile(out + ".stamp")
	if err != nil {
		return "", false
	}
	line := string(b)
	i := strings.LastIndexByte(strings.TrimSuffix(line, "\n"), ' ')
	if i < 0 {
		return "", false
	}
	note := line[i+1 : len(line)-1]
	want, ok := stampLine(key, out, note)
	return note, ok && line == want
}

// writeStamp records that out was built from key; a stamp that cannot be
// written only costs the next process a build.
func writeStamp(key, out, note string) {
	if line, ok := stampLine(key, out, note); ok {
		replace(out+".stamp", []byte(line), 0o600)
	}
}

// removeStamp forgets out's stamp before out is rebuilt: were the build
// to change out and fail to stamp it, an old stamp must not match.
func removeStamp(out string) { os.Remove(out + ".stamp") }

// goEnvFile is the file go env -w writes: $GOENV, else go/env in the
// user's configuration directory.
func goEnvFile(env []string) string {
	for i := len(env) - 1; i >= 0; i-- {
		if v, ok := strings.CutPrefix(env[i], "GOENV="); ok {
			if v == "off" {
				return ""
			}
			return v
		}
	}
	dir, err := os.UserConfigDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "go", "env")
}
