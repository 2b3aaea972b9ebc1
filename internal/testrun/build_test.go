package main

import (
	"bytes"
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	goruntime "runtime"
	"slices"
	"strings"
	"testing"

	"github.com/wasmagent/wasmagent/internal/wasmbuild"
)

// The groups of one run: each package's runs named by what sets them
// apart, each run with its group's environment and test flags, the race
// and plain binaries apart, a failure named with its run.
func TestGroupsInOneRun(t *testing.T) {
	if testing.Short() {
		t.Skip("builds test binaries")
	}
	dir := module(t, map[string]string{
		"env/env_test.go": `package env
import ("os"; "testing")
func TestEnv(t *testing.T) {
	if os.Getenv("WANT_FAIL") == "1" { t.Fatal("failing as WANT_FAIL asks") }
	t.Log("IMAGES=" + os.Getenv("IMAGES"))
}
func TestOther(t *testing.T) {}`,
		"race/race_test.go": `package race
import ("runtime"; "testing")
func TestRace(t *testing.T) { t.Log("race-enabled", raceOn) ; _ = runtime.GOOS }`,
		"race/on_test.go":  "//go:build race\n\npackage race\nconst raceOn = true\n",
		"race/off_test.go": "//go:build !race\n\npackage race\nconst raceOn = false\n",
	})
	bin := t.TempDir()
	var out, errOut bytes.Buffer
	code := run(dir, strings.Fields("-o "+bin+" -race ./race -- -test.v"+
		" :: ./... -- -test.v :: -env IMAGES=off ./env -- -test.run TestEnv -test.v :: -env WANT_FAIL=1 ./env"), &out, &errOut)
	got := out.String()
	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s\n%s", code, got, errOut.String())
	}
	for _, want := range []string{
		"race-enabled true",
		"race-enabled false",
		"ok  \texample.com/m/race\t",
		"ok  \texample.com/m/race (without -race)\t",
		"ok  \texample.com/m/env (without -race)\t",
		"IMAGES=off",
		"ok  \texample.com/m/env (without -race, IMAGES=off)\t",
		"failing as WANT_FAIL asks",
		"FAIL\texample.com/m/env (without -race, WANT_FAIL=1)\t",
		"testrun: FAIL: example.com/m/env (without -race, WANT_FAIL=1)\n",
		"testrun: 5 jobs",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
	// -test.run TestEnv in the IMAGES=off run: TestOther ran in one run only.
	if n := strings.Count(got, "=== RUN   TestOther"); n != 1 {
		t.Errorf("TestOther ran %d times, want 1:\n%s", n, got)
	}
	for _, f := range []string{"race/race.test", "plain/race.test", "plain/env.test", "race/elapsed.json", "plain/elapsed.json"} {
		if _, err := os.Stat(filepath.Join(bin, f)); err != nil {
			t.Error(err)
		}
	}
	h := loadHistory(flavours{race: filepath.Join(bin, "race"), plain: filepath.Join(bin, "plain")})
	if _, ok := h.own[0]["example.com/m/env (without -race, IMAGES=off)"]; !ok {
		t.Errorf("no time kept for the IMAGES=off run: %v", h.own[0])
	}
}

// A build reports each binary once: as it lands when go links it, at the
// end when go finds it up to date.
func TestBuildReportsEachBinaryOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("builds test binaries")
	}
	dir := module(t, map[string]string{
		"a/a_test.go": "package a\nimport \"testing\"\nfunc TestA(t *testing.T) {}\n",
		"b/b_test.go": "package b\nimport \"testing\"\nfunc TestB(t *testing.T) {}\n",
	})
	bin := t.TempDir()
	b := &goBuild{dir: dir, bin: bin, pkgs: []string{"example.com/m/b", "example.com/m/a"},
		binaries: []string{filepath.Join(bin, "b.test"), filepath.Join(bin, "a.test")}, stdout: &bytes.Buffer{}, stderr: &bytes.Buffer{}}
	for round := range 2 {
		var got []string
		said, err := b.run(func(bin string) {
			if _, err := os.Stat(bin); err != nil {
				t.Errorf("round %d: %s ready but absent: %v", round, bin, err)
			}
			got = append(got, bin)
		})
		if err != nil {
			t.Fatal(err, b.stderr)
		}
		if !strings.HasPrefix(said, "testrun: 2 test binaries built or found up to date in ") {
			t.Errorf("said %q", said)
		}
		slices.Sort(got)
		if want := []string{filepath.Join(bin, "a.test"), filepath.Join(bin, "b.test")}; !slices.Equal(got, want) {
			t.Errorf("round %d: ready %v, want %v", round, got, want)
		}
	}
	if entries, _ := filepath.Glob(filepath.Join(filepath.Dir(bin), "go-build*")); len(entries) > 0 {
		t.Errorf("go left its work directory behind: %v", entries)
	}
}

// A package that does not compile: its old binary, stale now, is not
// run; the run fails naming it.
func TestStaleBinaryNeverRuns(t *testing.T) {
	if testing.Short() {
		t.Skip("builds test binaries")
	}
	dir := module(t, map[string]string{
		"good/good_test.go":     "package good\nimport \"testing\"\nfunc TestGood(t *testing.T) {}\n",
		"broken/broken_test.go": "package broken\nimport \"testing\"\nfunc TestBroken(t *testing.T) { undefined() }\n",
	})
	bin := t.TempDir()
	stale := filepath.Join(bin, "plain", "broken.test")
	os.MkdirAll(filepath.Dir(stale), 0o700)
	if err := os.WriteFile(stale, []byte("#!/bin/sh\necho STALE BINARY RAN\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	code := run(dir, []string{"-o", bin, "./..."}, &out, &errOut)
	got := out.String()
	if code != 1 || strings.Contains(got, "STALE BINARY RAN") {
		t.Fatalf("exit %d\n%s", code, got)
	}
	for _, want := range []string{"FAIL\texample.com/m/broken\t0.000s (not run: its test binary was not built (go test -c: exit status 1))", "undefined: undefined"} {
		if !strings.Contains(got+errOut.String(), want) {
			t.Errorf("output lacks %q:\n%s\n%s", want, got, errOut.String())
		}
	}
}

// The test binaries testrun builds read the compilation cache directory
// the prewarm fills (wasmbuild.TestBinaryWazeroVersion's), even that of
// a main package, which plain go test links to read another; and they
// carry no DWARF.
func TestBinariesReadTheTestCache(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a test binary")
	}
	root, err := wasmbuild.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	bin := t.TempDir()
	var stderr bytes.Buffer
	b := &goBuild{dir: root, bin: bin, pkgs: []string{"./internal/wasmbuild/testdata/wazerodir"},
		binaries: []string{filepath.Join(bin, "wazerodir.test")}, stdout: &stderr, stderr: &stderr}
	if _, err := b.run(func(string) {}); err != nil {
		t.Fatal(err, stderr.String())
	}
	out, err := exec.Command(b.binaries[0]).CombinedOutput()
	want := "wazero-" + wasmbuild.TestBinaryWazeroVersion + "-" + goruntime.GOARCH + "-" + goruntime.GOOS
	if got := strings.TrimSpace(string(out)); err != nil || got != want {
		t.Errorf("the test binary of a main package, built by testrun, reads wazero's cache directory %q (%v), want %q", got, err, want)
	}
	f, err := elf.Open(b.binaries[0])
	if err != nil {
		t.Skipf("not an ELF file, DWARF not looked for: %v", err)
	}
	defer f.Close()
	for _, s := range f.Sections {
		if strings.HasPrefix(s.Name, ".debug_") || strings.HasPrefix(s.Name, ".zdebug_") {
			t.Errorf("the test binary carries DWARF: section %s", s.Name)
		}
		if s.Name == ".symtab" {
			t.Errorf("the test binary carries a symbol table: section %s", s.Name)
		}
	}
}

// Without DWARF and symbol table, a race report and a panic in a test
// binary testrun built still name each frame's file and line.
func TestStrippedBinariesNameFileAndLine(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a race test binary")
	}
	dir := module(t, map[string]string{
		"r/r_test.go": `package r

import ("os"; "testing")

func TestRace(t *testing.T) {
	x := 0
	done := make(chan bool)
	go func() { x = 1; done <- true }()
	x = 2
	<-done
	_ = x
}

func TestPanic(t *testing.T) {
	if os.Getenv("PANIC") == "" { t.Skip() }
	var m map[string]int
	m["x"] = 1
}
`,
	})
	bin := t.TempDir()
	var stderr bytes.Buffer
	b := &goBuild{dir: dir, bin: bin, race: true, pkgs: []string{"example.com/m/r"},
		binaries: []string{filepath.Join(bin, "r.test")}, stdout: &stderr, stderr: &stderr}
	if _, err := b.run(func(string) {}); err != nil {
		t.Fatal(err, stderr.String())
	}
	for _, c := range []struct{ test, env, want, line string }{
		{"TestRace", "", "WARNING: DATA RACE", "r_test.go:8 "},
		{"TestPanic", "PANIC=1", "panic: assignment to entry in nil map", "r_test.go:17 "},
	} {
		cmd := exec.Command(b.binaries[0], "-test.run", "^"+c.test+"$")
		cmd.Env = append(os.Environ(), c.env)
		out, _ := cmd.CombinedOutput()
		if !bytes.Contains(out, []byte(c.want)) || !bytes.Contains(out, []byte(filepath.Join(dir, "r", c.line))) {
			t.Errorf("%s: output lacks %q or %q:\n%s", c.test, c.want, filepath.Join(dir, "r", c.line), out)
		}
	}
}
