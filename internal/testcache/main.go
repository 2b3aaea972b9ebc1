// Command testcache is make test's prewarm: it fills the tests' shared
// compilation caches (wasmbuild.TestCacheDir, extismcompat.CacheDir)
// with every module the tests build (modules.go), compiled the ways the
// tests compile them (compile.go), by processes built without the race
// detector — so that no race-instrumented test process compiles a Go
// plugin itself (RATIONALE.md, "Why does make test warm the compilation
// cache first?", and its correction).
//
// wazero keeps compiled modules in a directory named after its own
// version, which it reads from the binary's build information: a command
// sees the version in go.mod ("v1.12.0"), the test binary of a package
// other than main sees none ("dev"). This command fills its own
// directory, which the wasmagent processes the end-to-end tests start
// read, then runs itself again built with wazero's version set to the
// test binaries' (wasmbuild.TestBinaryWazeroVersion) to fill theirs.
// runtime's TestPrewarmFillsWhatTestsRead checks, from a test binary,
// that it then finds what it compiles.
//
// With -report, it lists instead the compiled modules of 1 MiB or more
// (Go plugins; no small generated module) that entered those caches after
// the last prewarm: what the tests compiled themselves, the prewarm having
// missed it.
package main

import (
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/wasmagent/wasmagent/internal/atomicfile"
	"github.com/wasmagent/wasmagent/internal/wasmbuild"
)

func main() {
	report := flag.Bool("report", false, "list the large modules compiled since the last prewarm, instead of prewarming")
	asTest := flag.Bool("as-test-binary", false, "compile the modules NAME=PATH given as arguments for test binaries (the prewarm runs itself so, built with their wazero version)")
	only := flag.String("only", "", "prewarm only these plugin directories (comma-separated, relative to the module root), for tests")
	flag.Parse()
	var err error
	switch {
	case *report:
		err = reportMisses(os.Stdout)
	case *asTest:
		err = prewarmAsTestBinary(flag.Args())
	default:
		err = prewarm(*only)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "testcache:", err)
		os.Exit(1)
	}
}

func prewarm(only string) error {
	version, err := wasmbuild.WazeroVersion()
	if err != nil {
		return err
	}
	mods, err := testModules(only)
	if err != nil {
		return err
	}
	key, err := prewarmKey(mods)
	if err != nil {
		return err
	}
	if only == "" {
		if b, err := os.ReadFile(keyPath()); err == nil && string(b) == key {
			fmt.Printf("the caches hold these %d test modules already (same modules, same prewarm)\n", len(mods))
			return nil
		}
	}
	if err := compileAll(mods, version); err != nil {
		return err
	}
	if version != wasmbuild.TestBinaryWazeroVersion {
		if err := runAsTestBinary(mods); err != nil {
			return err
		}
	}
	if err := touch(stampPath()); err != nil {
		return err
	}
	if only != "" {
		return nil
	}
	return atomicfile.Write(keyPath(), []byte(key))
}

// prewarmKey names what a prewarm of mods compiles: this executable (the
// runtime's rewrite and wazero's compiler, with their versions, are in
// it, and the second pass is built from the same sources) and each
// module's bytes. When it is the key of the last whole prewarm, its
// entries are in the caches already and the prewarm is skipped; an
// entry deleted since is compiled again by the test that needs it.
func prewarmKey(mods []module) (string, error) {
	h := sha256.New()
	self, err := os.Executable()
	if err != nil {
		return "", err
	}
	for _, path := range append([]string{self}, modulePaths(mods)...) {
		f, err := os.Open(path)
		if err != nil {
			return "", err
		}
		fmt.Fprintf(h, "%s\x00", filepath.Base(path))
		_, err = io.Copy(h, f)
		f.Close()
		if err != nil {
			return "", err
		}
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

func modulePaths(mods []module) []string {
	var paths []string
	for _, m := range mods {
		paths = append(paths, m.path)
	}
	return paths
}

// keyPath holds the key of the last whole prewarm (prewarmKey), beside
// the caches it filled: removing them removes it.
func keyPath() string { return filepath.Join(wasmbuild.TestCacheDir(), "prewarmed.key") }

// runAsTestBinary runs this command again, built so that its wazero names
// the cache directory as a test binary's does, to compile mods (built
// already).
func runAsTestBinary(mods []module) error {
	root, err := wasmbuild.ModuleRoot()
	if err != nil {
		return err
	}
	args := []string{"run", wasmbuild.WazeroVersionLdflag(wasmbuild.TestBinaryWazeroVersion), "./internal/testcache", "-as-test-binary", "--"}
	for _, m := range mods {
		args = append(args, m.name+"="+m.path)
	}
	cmd := exec.Command(wasmbuild.GoTool(), args...)
	cmd.Dir = root
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("the prewarm for test binaries: %w", err)
	}
	return nil
}

// prewarmAsTestBinary compiles the modules given as NAME=PATH, checking
// first that this process's wazero reads the test binaries' directory.
func prewarmAsTestBinary(args []string) error {
	version, err := wasmbuild.WazeroVersion()
	if err != nil {
		return err
	}
	if version != wasmbuild.TestBinaryWazeroVersion {
		return fmt.Errorf("built with %s, wazero still names its cache after version %q, not %q", wasmbuild.WazeroVersionLdflag(wasmbuild.TestBinaryWazeroVersion), version, wasmbuild.TestBinaryWazeroVersion)
	}
	var mods []module
	for _, a := range args {
		name, path, ok := strings.Cut(a, "=")
		if !ok {
			return fmt.Errorf("argument %q is not NAME=PATH", a)
		}
		mods = append(mods, module{name: name, path: path})
	}
	return compileAll(mods, version)
}

// stampPath is the file whose time is the last prewarm's end.
func stampPath() string { return filepath.Join(wasmbuild.TestCacheDir(), "prewarmed") }

func touch(path string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	return os.WriteFile(path, []byte("the time of this file is the end of the last prewarm (go run ./internal/testcache)\n"), 0o600)
}
