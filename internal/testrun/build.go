package main

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/wasmagent/wasmagent/internal/wasmbuild"
)

// pkg is a package with tests.
type pkg struct {
	ImportPath, Dir string
	TestBytes       int64 // the size of its _test.go files
}

// list returns the packages of patterns that have test files.
func list(dir string, patterns []string) ([]pkg, error) {
	const format = "{{if or .TestGoFiles .XTestGoFiles}}{{.ImportPath}}\t{{.Dir}}{{range .TestGoFiles}}\t{{.}}{{end}}{{range .XTestGoFiles}}\t{{.}}{{end}}\n{{end}}"
	cmd := exec.Command(wasmbuild.GoTool(), append([]string{"list", "-f", format}, patterns...)...)
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return nil, fmt.Errorf("go list: %v\n%s", err, ee.Stderr)
		}
		return nil, fmt.Errorf("go list: %w", err)
	}
	var pkgs []pkg
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		fields := strings.Split(sc.Text(), "\t")
		if len(fields) < 2 {
			continue
		}
		p := pkg{ImportPath: fields[0], Dir: fields[1]}
		for _, f := range fields[2:] {
			if fi, err := os.Stat(filepath.Join(p.Dir, f)); err == nil {
				p.TestBytes += fi.Size()
			}
		}
		pkgs = append(pkgs, p)
	}
	return pkgs, nil
}

// binaryName is the name go test -c -o DIR/ gives the test binary of the
// package with import path path: its last element, or the one before a
// major version suffix (cmd/go's DefaultExecName).
func binaryName(path string) string {
	elems := strings.Split(path, "/")
	elem := elems[len(elems)-1]
	if len(elems) > 1 && majorSuffix.MatchString(elem) {
		elem = elems[len(elems)-2]
	}
	return elem + ".test"
}

var majorSuffix = regexp.MustCompile(`^v[2-9][0-9]*$|^v[1-9][0-9]+$`)

// checkoutDir is where the test binaries of this checkout live between
// runs, less the "-race" of the race detector's.
func checkoutDir(dir string) (string, error) {
	cmd := exec.Command(wasmbuild.GoTool(), "env", "GOMOD")
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %w", err)
	}
	sum := sha256.Sum256(bytes.TrimSpace(out))
	return filepath.Join(testbinRoot(), hex.EncodeToString(sum[:6])), nil
}

// testbinRoot holds every checkout's test binaries.
func testbinRoot() string {
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	return filepath.Join(cache, "wasmagent", "testbin")
}

// placeBinaries sets each job's binary path, refusing two packages whose
// binaries go test -c -o DIR/ would give one name.
func placeBinaries(jobs []*job, dirs flavours) error {
	owner := map[string]string{}
	for _, j := range jobs {
		j.binary = filepath.Join(dirs.of(j.race), binaryName(j.pkg.ImportPath))
		if other, dup := owner[j.binary]; dup && other != j.pkg.ImportPath {
			return fmt.Errorf("packages %s and %s would both build %s: testrun needs distinct last path elements", other, j.pkg.ImportPath, filepath.Base(j.binary))
		}
		owner[j.binary] = j.pkg.ImportPath
	}
	for _, d := range []string{dirs.race, dirs.plain} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return err
		}
	}
	return nil
}

// goBuild is one go test -c: the test binaries of one flavour (with or
// without the race detector), in the order they are wanted.
type goBuild struct {
	dir      string // the module's
	bin      string // where the binaries go
	race     bool
	pkgs     []string // import paths
	binaries []string // their binaries' paths
	stdout   io.Writer
	stderr   io.Writer
}

// buildsFor returns the go test -c commands that make the jobs'
// binaries: one per flavour, the flavour of the first job first, and in
// each the packages in the jobs' order, since go links them in about the
// order they are named.
func buildsFor(dir string, jobs []*job, stdout, stderr io.Writer) []*goBuild {
	var builds []*goBuild
	byRace := map[bool]*goBuild{}
	added := map[string]bool{}
	for _, j := range jobs {
		b := byRace[j.race]
		if b == nil {
			b = &goBuild{dir: dir, bin: filepath.Dir(j.binary), race: j.race, stdout: stdout, stderr: stderr}
			byRace[j.race] = b
			builds = append(builds, b)
		}
		if !added[j.binary] {
			added[j.binary] = true
			b.pkgs = append(b.pkgs, j.pkg.ImportPath)
			b.binaries = append(b.binaries, j.binary)
		}
	}
	return builds
}

// pollEvery is how often a build looks for the binaries it has put in place.
const pollEvery = 100 * time.Millisecond

// run builds, calling ready with each binary as soon as go has put it in
// place: go links in a work directory and renames the binary into bin,
// so a binary whose file is another than before the build is complete.
// A binary go found up to date is not touched; it is ready when go
// ends. After an error, the binaries not seen replaced are not ready: go
// may have skipped them, leaving a stale one.
func (b *goBuild) run(ready func(binary string)) (string, error) {
	start := time.Now()
	before := map[string]os.FileInfo{}
	for _, bin := range b.binaries {
		before[bin], _ = os.Stat(bin) // nil if absent
	}
	// wasmbuild.TestLinkFlags: every test binary, of a main package or
	// not, reads the compilation cache directory the prewarm fills and
	// the commands the tests start read; and none carries DWARF.
	args := []string{"test", "-c", wasmbuild.TestLinkFlags(), "-o", b.bin + string(filepath.Separator)}
	if b.race {
		args = append(args, "-race")
	}
	cmd := exec.Command(wasmbuild.GoTool(), append(args, b.pkgs...)...)
	cmd.Dir = b.dir
	// The work directory beside the binaries, on their file system, so
	// that go renames each binary into place rather than copies it.
	cmd.Env = append(os.Environ(), "GOTMPDIR="+filepath.Dir(b.bin))
	cmd.Stdout, cmd.Stderr = b.stderr, b.stderr
	if err := cmd.Start(); err != nil {
		return "", fmt.Errorf("go test -c: %w", err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	pending := append([]string(nil), b.binaries...)
	tick := time.NewTicker(pollEvery)
	defer tick.Stop()
	for {
		select {
		case err := <-done:
			pending = replaced(pending, before, ready)
			if err != nil {
				return "", fmt.Errorf("go test -c%s: %w", raceFlag(b.race), err)
			}
			for _, bin := range pending {
				ready(bin)
			}
			with := ""
			if b.race {
				with = " with -race"
			}
			return fmt.Sprintf("testrun: %d test binaries%s built or found up to date in %.1fs\n", len(b.binaries), with, time.Since(start).Seconds()), nil
		case <-tick.C:
			pending = replaced(pending, before, ready)
		}
	}
}

// replaced calls ready for each pending binary whose file is not the one
// there before, and returns the others.
func replaced(pending []string, before map[string]os.FileInfo, ready func(string)) []string {
	left := pending[:0]
	for _, bin := range pending {
		fi, err := os.Stat(bin)
		if err == nil && (before[bin] == nil || !os.SameFile(before[bin], fi)) {
			ready(bin)
			continue
		}
		left = append(left, bin)
	}
	return left
}

func raceFlag(race bool) string {
	if race {
		return " -race"
	}
	return ""
}

// buildAll runs the builds one after another (testrun -c).
func buildAll(builds []*goBuild, stderr io.Writer) int {
	for _, b := range builds {
		said, err := b.run(func(string) {})
		if err != nil {
			fmt.Fprintln(stderr, "testrun:", err)
			return 1
		}
		fmt.Fprint(b.stdout, said)
	}
	return 0
}
