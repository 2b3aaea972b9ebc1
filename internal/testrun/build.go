package main

import (
	"bufio"
	"bytes"
	"context"
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

// pkg is a package of the module.
type pkg struct {
	ImportPath, Dir string
	Tested          bool  // it has test files
	TestBytes       int64 // the size of its _test.go files
}

// list returns the packages of patterns, with test files or not.
func list(dir string, patterns []string) ([]pkg, error) {
	const format = "{{.ImportPath}}\t{{.Dir}}{{range .TestGoFiles}}\t{{.}}{{end}}{{range .XTestGoFiles}}\t{{.}}{{end}}\n"
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
		p := pkg{ImportPath: fields[0], Dir: fields[1], Tested: len(fields) > 2}
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
	ctx      context.Context // cancelled: the build is interrupted
	dir      string          // the module's
	bin      string          // where the binaries go
	race     bool
	pkgs     []string // import paths
	binaries []string // their binaries' paths
	// vet is go test's -vet: "all" (go vet's analyzers, on pkgs and
	// vetOnly) or "off" (or "").
	vet     string
	vetOnly []string // packages without tests, vetted and not built
	stdout  io.Writer
	stderr  io.Writer
}

// buildsFor returns the go test -c commands that make the jobs'
// binaries: one per flavour, the flavour of the first job first, and in
// each the packages in the jobs' order, since go links them in about the
// order they are named. The first build vets (vet "all": with go vet's
// analyzers) every package it builds and the untested ones too; the
// others vet nothing, since the first vetted their sources
// (RATIONALE.md, "Why does make test vet in the race build?").
func buildsFor(ctx context.Context, dir string, jobs []*job, untested []string, vet string, stdout, stderr io.Writer) []*goBuild {
	var builds []*goBuild
	byRace := map[bool]*goBuild{}
	added := map[string]bool{}
	for _, j := range jobs {
		b := byRace[j.race]
		if b == nil {
			b = &goBuild{ctx: ctx, dir: dir, bin: filepath.Dir(j.binary), race: j.race, vet: "off", stdout: stdout, stderr: stderr}
			byRace[j.race] = b
			builds = append(builds, b)
		}
		if !added[j.binary] {
			added[j.binary] = true
			b.pkgs = append(b.pkgs, j.pkg.ImportPath)
			b.binaries = append(b.binaries, j.binary)
		}
	}
	if len(builds) > 0 {
		builds[0].vet = vet
		if vet != "off" {
			builds[0].vetOnly = untested
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
	if b.vet == "" {
		b.vet = "off"
	}
	args := []string{"test", "-c", wasmbuild.TestLinkFlags(), "-vet=" + b.vet, "-o", b.bin + string(filepath.Separator)}
	if b.race {
		args = append(args, "-race")
	}
	args = append(append(args, b.pkgs...), b.vetOnly...)
	ctx := b.ctx
	if ctx == nil {
		ctx = context.Background()
	}
	cmd := exec.CommandContext(ctx, wasmbuild.GoTool(), args...)
	// Interrupted, go stops its compiles and removes its work directory.
	cmd.Cancel = func() error { return interrupt(cmd.Process) }
	cmd.WaitDelay = 10 * time.Second
	cmd.Dir = b.dir
	// The work directory beside the binaries, on their file system, so
	// that go renames each binary into place rather than copies it.
	cmd.Env = append(os.Environ(), "GOTMPDIR="+filepath.Dir(b.bin))
	// go prints a line on stdout for each untested package it vets:
	// "?   \tPATH\t[no test files]"; testrun keeps the others, on
	// stderr with go's messages.
	var stdout bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, b.stderr
	if err := cmd.Start(); err != nil {
		return "", fmt.Errorf("go test -c: %w", err)
	}
	done := make(chan error, 1)
	go func() {
		err := cmd.Wait()
		b.stderr.Write(dropNoTestFiles(stdout.Bytes()))
		done <- err
	}()
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
			vetted := ""
			if b.vet != "off" {
				vetted = fmt.Sprintf(" (%d packages vetted)", len(b.pkgs)+len(b.vetOnly))
			}
			return fmt.Sprintf("testrun: %d test binaries%s built or found up to date%s in %.1fs\n", len(b.binaries), with, vetted, time.Since(start).Seconds()), nil
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

// dropNoTestFiles returns go test's output less its "[no test files]"
// lines.
func dropNoTestFiles(out []byte) []byte {
	var kept []byte
	for line := range bytes.Lines(out) {
		if bytes.HasPrefix(line, []byte("?")) && bytes.HasSuffix(bytes.TrimRight(line, "\r\n"), []byte("\t[no test files]")) {
			continue
		}
		kept = append(kept, line...)
	}
	return kept
}

func raceFlag(race bool) string {
	if race {
		return " -race"
	}
	return ""
}

// buildAll runs the builds one after another (testrun -c), and before,
// if set, at the same time.
func buildAll(builds []*goBuild, before func() error, stderr io.Writer) int {
	beforeErr := make(chan error, 1)
	if before != nil {
		go func() { beforeErr <- before() }()
	} else {
		beforeErr <- nil
	}
	code := 0
	for _, b := range builds {
		said, err := b.run(func(string) {})
		if err != nil {
			fmt.Fprintln(stderr, "testrun:", err)
			code = 1
			break
		}
		fmt.Fprint(b.stdout, said)
	}
	if err := <-beforeErr; err != nil {
		fmt.Fprintln(stderr, "testrun:", err)
		code = 1
	}
	return code
}
