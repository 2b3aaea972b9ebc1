package main

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/wasmagent/wasmagent/internal/wasmbuild"
)

// make test runs the tests of the packages in the Makefile's PLAIN_PKGS
// without the race detector, so that openai-go is compiled once, not a
// second time for it (host/provider). They must be exactly the packages
// whose test binaries link openai-go: one more linking it (an import of
// host/openai in a race-tested package's test) would bring that compile
// back unseen, and one that no longer does has no reason to go without
// the race detector.
func TestPlainPackagesAreThoseLinkingOpenAI(t *testing.T) {
	root, err := wasmbuild.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	var listed []string
	f, err := os.Open(filepath.Join(root, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "PLAIN_PKGS = "); ok {
			listed = strings.Fields(rest)
		}
	}
	if len(listed) == 0 {
		t.Fatal("no PLAIN_PKGS = line in the Makefile")
	}
	cmd := exec.Command(wasmbuild.GoTool(), "list", "-test", "-f", "{{.ImportPath}}{{range .Deps}} {{.}}{{end}}", "./...")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	const module, openai = "github.com/wasmagent/wasmagent/", "github.com/openai/openai-go/v3"
	var linking []string
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		if len(fields) == 0 || !strings.HasSuffix(fields[0], ".test") {
			continue
		}
		if slices.Contains(fields[1:], openai) {
			linking = append(linking, strings.TrimPrefix(strings.TrimSuffix(fields[0], ".test"), module))
		}
	}
	slices.Sort(listed)
	slices.Sort(linking)
	if !slices.Equal(listed, linking) {
		t.Fatalf("the Makefile's PLAIN_PKGS is %q, but the test binaries that link %s are those of %q: keep openai-go out of the race-tested packages (their tests use internal/configtest.StandInOpenAI), or list the package", listed, openai, linking)
	}
}
