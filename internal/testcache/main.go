// Command testcache is make test's prewarm: it fills the tests' shared
// compilation caches (wasmbuild.TestCacheDir, extismcompat.CacheDir)
// with every module the tests build (modules.go), compiled the ways the
// tests compile them (compile.go), by processes built without the race
// detector — so that no race-instrumented test process compiles a Go
// plugin itself (RATIONALE.md, "Why does make test warm the compilation
// cache first?", and its correction).
//
// wazero keeps compiled modules in a directory named after its own
// version, which it reads from the binary's build information, or from
// a linker flag. Every binary built to run the tests (testrun's test
// binaries, the commands tests start) is linked with
// wasmbuild.TestLinkFlags, which sets the one version a test binary of a
// package other than main sees anyway ("dev"); this command runs itself
// so built too, and so compiles each module once for all of them.
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

	"github.com/wasmagent/wasmagent/internal/atomicfile"
	"github.com/wasmagent/wasmagent/internal/wasmbuild"
)

func main() {
	report := flag.Bool("report", false, "list the large modules compiled since the last prewarm, instead of prewarming")
	only := flag.String("only", "", "prewarm only these plugin directories (comma-separated, relative to the module root), for tests")
	relinked := flag.Bool("linked-for-tests", false, "set by the prewarm when it runs itself linked with wasmbuild.TestLinkFlags")
	flag.Parse()
	var err error
	switch {
	case *report:
		err = reportMisses(os.Stdout)
	default:
		err = prewarm(*only, *relinked)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "testcache:", err)
		os.Exit(1)
	}
}

// prewarm compiles the test modules (those of only, if not empty) into
// the caches the tests read, unless the last whole prewarm compiled
// the same. A process whose wazero names its cache after another
// version than the tests' (go run without wasmbuild.TestLinkFlags) runs
// this command again so linked, which prewarms.
func prewarm(only string, relinked bool) error {
	version, err := wasmbuild.WazeroVersion()
	if err != nil {
		return err
	}
	if version != wasmbuild.TestBinaryWazeroVersion {
		if relinked {
			return fmt.Errorf("linked with %s, wazero still names its cache after version %q, not %q", wasmbuild.TestLinkFlags(), version, wasmbuild.TestBinaryWazeroVersion)
		}
		return runLinkedForTests(only)
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
	if err := compileAll(mods); err != nil {
		return err
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
// it) and each
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

// runLinkedForTests runs this command again, linked as the tests'
// binaries are (wasmbuild.TestLinkFlags), so that its wazero reads
// their cache directory, to prewarm only (or all).
func runLinkedForTests(only string) error {
	root, err := wasmbuild.ModuleRoot()
	if err != nil {
		return err
	}
	cmd := exec.Command(wasmbuild.GoTool(), "run", wasmbuild.TestLinkFlags(), "./internal/testcache", "-linked-for-tests", "-only", only)
	cmd.Dir = root
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("the prewarm linked for the tests: %w", err)
	}
	return nil
}

// stampPath is the file whose time is the last prewarm's end.
func stampPath() string { return filepath.Join(wasmbuild.TestCacheDir(), "prewarmed") }

func touch(path string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	return os.WriteFile(path, []byte("the time of this file is the end of the last prewarm (go run ./internal/testcache)\n"), 0o600)
}
