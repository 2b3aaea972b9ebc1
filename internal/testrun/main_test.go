package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// module writes a module of files (path → content) into a temporary
// directory.
func module(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	files["go.mod"] = "module example.com/m\n\ngo 1.22\n"
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// A passing, a failing and an untested package: testrun reports ok and
// FAIL as go test does, runs each binary in its package's directory,
// exits 1, and on the next run orders packages by the time they took.
func TestRunReportsLikeGoTest(t *testing.T) {
	if testing.Short() {
		t.Skip("builds test binaries")
	}
	dir := module(t, map[string]string{
		"pass/pass_test.go": `package pass
import ("os"; "testing")
func TestHere(t *testing.T) {
	if _, err := os.Stat("pass_test.go"); err != nil { t.Fatal("not run in its package's directory:", err) }
}`,
		"fail/fail_test.go": `package fail
import "testing"
func TestBroken(t *testing.T) { t.Fatal("broken on purpose") }`,
		"none/none.go":   "package none\n",
		"skip/x_test.go": "package skip\nimport \"testing\"\nfunc TestX(t *testing.T) { t.Fatal(\"skipped packages do not run\") }\n",
	})
	bin := t.TempDir()
	var out, errOut bytes.Buffer
	code := run(dir, []string{"-p", "2", "-o", bin, "-skip", "/skip$", "./..."}, &out, &errOut)
	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s\n%s", code, out.String(), errOut.String())
	}
	got := out.String()
	for _, want := range []string{"ok  \texample.com/m/pass\t", "FAIL\texample.com/m/fail\t", "broken on purpose", "testrun: FAIL: example.com/m/fail\n", "s of CPU in the tests, user ", ", system "} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "m/none") || strings.Contains(got, "m/skip") {
		t.Errorf("an untested or skipped package ran:\n%s", got)
	}
	var times map[string]float64
	b, _ := os.ReadFile(filepath.Join(bin, "plain", "elapsed.json"))
	if err := json.Unmarshal(b, &times); err != nil || len(times) != 2 {
		t.Fatalf("elapsed.json: %s (%v)", b, err)
	}
}

// Two packages whose binaries go test -c -o DIR/ would give one name are
// refused before anything is built.
func TestSameLastElementRefused(t *testing.T) {
	dir := module(t, map[string]string{
		"a/x/x_test.go": "package x\nimport \"testing\"\nfunc TestA(t *testing.T) {}\n",
		"b/x/x_test.go": "package x\nimport \"testing\"\nfunc TestB(t *testing.T) {}\n",
	})
	var out, errOut bytes.Buffer
	if code := run(dir, []string{"-o", t.TempDir(), "./..."}, &out, &errOut); code != 1 || !strings.Contains(errOut.String(), "would both build x.test") {
		t.Fatalf("exit %d\n%s", code, errOut.String())
	}
}

func TestBinaryName(t *testing.T) {
	for path, want := range map[string]string{
		"example.com/m":       "m.test",
		"example.com/m/a/x":   "x.test",
		"example.com/m/v2":    "m.test",
		"example.com/m/v2/x":  "x.test",
		"example.com/m/v1":    "v1.test",
		"example.com/m/v10":   "m.test",
		"example.com/m/v0":    "v0.test",
		"example.com/m/vx":    "vx.test",
		"github.com/a/b/v3":   "b.test",
		"single":              "single.test",
		"example.com/m/v2025": "m.test",
	} {
		if got := binaryName(path); got != want {
			t.Errorf("binaryName(%q) = %q, want %q", path, got, want)
		}
	}
}

func TestOneGroupArgs(t *testing.T) {
	for _, c := range []struct {
		args            []string
		patterns, flags string
	}{
		{nil, "./...", ""},
		{[]string{"./a", "./b"}, "./a ./b", ""},
		{[]string{"--", "-test.short"}, "./...", "-test.short"},
		{[]string{"./a", "--", "-test.run", "X"}, "./a", "-test.run X"},
	} {
		_, groups, err := parseArgs(c.args)
		if err != nil || len(groups) != 1 {
			t.Fatalf("parseArgs(%q): %v, %d groups", c.args, err, len(groups))
		}
		p, f := groups[0].patterns, groups[0].testFlags
		if strings.Join(p, " ") != c.patterns || strings.Join(f, " ") != c.flags {
			t.Errorf("parseArgs(%q) = %q, %q", c.args, p, f)
		}
	}
}
