package main

import (
	"bytes"
	"context"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/wasmagent/wasmagent/internal/wasmbuild"
)

// seededVetMistakes are mistakes go vet finds, each by another analyzer,
// most of them outside go test's default subset (copylocks, assign,
// unreachable, unusedresult): in a package with tests, in
// its external test package, in a test file, and in a package without
// tests, which go test builds no binary for.
var seededVetMistakes = map[string]string{
	"tested/tested.go": `package tested
import ("fmt"; "sync")
func Sprint() string { return fmt.Sprintf("%d", "not a number") }
func Copy(m sync.Mutex) {}
func Dead() { return; println("unreachable") }
`,
	"tested/tested_test.go": `package tested
import "testing"
func TestTested(t *testing.T) { x := 1; x = x; _ = x }
`,
	"tested/x_test.go": `package tested_test
import ("fmt"; "testing")
func TestX(t *testing.T) { fmt.Sprint("unused") }
`,
	"untested/untested.go": `package untested
import "fmt"
func Say() { fmt.Printf("%s\n") }
func Rune(i int) string { return string(i) }
`,
	"clean/clean_test.go": "package clean\nimport \"testing\"\nfunc TestClean(t *testing.T) {}\n",
}

// vetFinding is go vet's "file:line:col: message", with the message's
// leading path dropped.
var vetFinding = regexp.MustCompile(`(?m)^(?:\./)?([a-z_]+/[a-z_]+\.go:\d+:\d+: .*)$`)

func findings(out string) []string {
	var got []string
	for _, m := range vetFinding.FindAllStringSubmatch(out, -1) {
		if !slices.Contains(got, m[1]) {
			got = append(got, m[1])
		}
	}
	slices.Sort(got)
	return got
}

// A vet finding fails the run, named with file and line, in a package
// with tests (whose binary is then not built, nor run) and in one
// without; and testrun finds what go vet ./... finds, no more, no less.
func TestVetFindingsFailTheRun(t *testing.T) {
	if testing.Short() {
		t.Skip("builds test binaries")
	}
	dir := module(t, seededVetMistakes)
	var out, errOut bytes.Buffer
	code := run(dir, []string{"-vet", "all", "-o", t.TempDir(), "./..."}, &out, &errOut)
	all := out.String() + errOut.String()
	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s", code, all)
	}
	for _, want := range []string{
		"ok  \texample.com/m/clean\t",
		"FAIL\texample.com/m/tested\t0.000s (not run: its test binary was not built",
		"untested/untested.go:3:", // a package without tests is vetted
		"tested/tested_test.go:3:",
	} {
		if !strings.Contains(all, want) {
			t.Errorf("output lacks %q:\n%s", want, all)
		}
	}
	if strings.Contains(all, "[no test files]") {
		t.Errorf("go's [no test files] lines are printed:\n%s", all)
	}
	cmd := exec.Command(wasmbuild.GoTool(), "vet", "./...")
	cmd.Dir = dir
	vetOut, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("go vet found nothing:\n%s", vetOut)
	}
	want, got := findings(string(vetOut)), findings(all)
	if len(want) < 7 || !slices.Equal(got, want) {
		t.Errorf("testrun's vet findings differ from go vet's\ntestrun:\n%s\ngo vet:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// The first build vets every package named, the untested ones too, with
// go vet's analyzers; a later build, of the same sources, vets nothing;
// -vet off vets nothing anywhere.
func TestOnlyTheFirstBuildVets(t *testing.T) {
	jobs := []*job{
		{pkg: pkg{ImportPath: "m/a"}, race: true, binary: "/race/a.test"},
		{pkg: pkg{ImportPath: "m/a"}, binary: "/plain/a.test"},
		{pkg: pkg{ImportPath: "m/b"}, race: true, binary: "/race/b.test"},
	}
	untested := []string{"m/none"}
	builds := buildsFor(context.Background(), ".", jobs, untested, "all", nil, nil)
	if len(builds) != 2 || !builds[0].race || builds[0].vet != "all" || !slices.Equal(builds[0].vetOnly, untested) ||
		!slices.Equal(builds[0].pkgs, []string{"m/a", "m/b"}) {
		t.Fatalf("first build %+v", builds[0])
	}
	if builds[1].vet != "off" || builds[1].vetOnly != nil {
		t.Errorf("second build vets: %+v", builds[1])
	}
	for _, b := range buildsFor(context.Background(), ".", jobs, untested, "off", nil, nil) {
		if b.vet != "off" || b.vetOnly != nil {
			t.Errorf("-vet off: a build vets: %+v", b)
		}
	}
}

func TestDropNoTestFiles(t *testing.T) {
	in := "?   \texample.com/m/none\t[no test files]\nFAIL\texample.com/m/b [build failed]\n?   \tm/x\t[no test files]\r\nkept ? [no test files] here\n"
	want := "FAIL\texample.com/m/b [build failed]\nkept ? [no test files] here\n"
	if got := string(dropNoTestFiles([]byte(in))); got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
