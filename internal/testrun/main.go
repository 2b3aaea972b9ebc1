// Command testrun is make test's go test: it builds the test binary of
// every package into a directory that outlives the run, then runs them, a
// few at a time, each in its package's directory, and reports like go
// test.
//
//	go run ./internal/testrun [-c] [-p N] [-skip REGEXP] [-race] [-o DIR] [PACKAGES] [-- TESTFLAGS]
//
// go test links every test binary again on every run, even with a warm
// build cache: for this module's 37 test binaries under the race detector
// (nats-server, OpenTelemetry, wazero, openai-go in most) that was a
// third of the CPU of a warm make test. go test -c -o DIR/ finds a binary
// it wrote before up to date and skips its link unless a source changed
// (RATIONALE.md, "Why is make test shaped this way?").
package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	goruntime "runtime"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/wasmagent/wasmagent/internal/wasmbuild"
)

func main() {
	os.Exit(run(".", os.Args[1:], os.Stdout, os.Stderr))
}

// pkg is a package with tests.
type pkg struct {
	ImportPath, Dir string
	Binary          string
}

// result is one package's run.
type result struct {
	pkg     pkg
	out     []byte
	err     error
	elapsed time.Duration
	cpu     time.Duration // user and system time of the test binary and its children
}

// run tests the packages of the module in dir as the arguments say and
// returns the exit code.
func run(dir string, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("testrun", flag.ContinueOnError)
	fs.SetOutput(stderr)
	parallel := fs.Int("p", 2*goruntime.NumCPU(), "test binaries run at once (default: twice the CPUs, since many packages mostly wait)")
	skip := fs.String("skip", "", "leave out packages whose import path matches this regular expression")
	race := fs.Bool("race", false, "build the test binaries with the race detector")
	timeout := fs.Duration("timeout", 10*time.Minute, "each test binary's -test.timeout")
	buildOnly := fs.Bool("c", false, "build the test binaries and run none")
	binFlag := fs.String("o", "", "keep the test binaries in this directory (default: one per checkout under the user cache directory)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	patterns, testFlags := splitArgs(fs.Args())
	if *parallel < 1 {
		fmt.Fprintln(stderr, "testrun: -p must be at least 1")
		return 2
	}
	var skipRE *regexp.Regexp
	if *skip != "" {
		var err error
		if skipRE, err = regexp.Compile(*skip); err != nil {
			fmt.Fprintf(stderr, "testrun: -skip: %v\n", err)
			return 2
		}
	}
	pkgs, err := list(dir, patterns, skipRE)
	if err != nil {
		fmt.Fprintln(stderr, "testrun:", err)
		return 1
	}
	bin := *binFlag
	if bin == "" {
		bin, err = binDir(dir, *race)
	} else {
		bin, err = filepath.Abs(bin)
	}
	if err == nil {
		err = os.MkdirAll(bin, 0o700)
	}
	if err != nil {
		fmt.Fprintln(stderr, "testrun:", err)
		return 1
	}
	start := time.Now()
	if err := build(dir, pkgs, bin, *race, stderr); err != nil {
		fmt.Fprintln(stderr, "testrun:", err)
		return 1
	}
	fmt.Fprintf(stdout, "testrun: %d test binaries built or found up to date in %.1fs\n", len(pkgs), time.Since(start).Seconds())
	if *buildOnly {
		return 0
	}
	flags := append([]string{"-test.count=1", "-test.paniconexit0", "-test.timeout=" + timeout.String()}, testFlags...)
	times := loadTimes(bin)
	longestFirst(pkgs, times)
	results := runAll(pkgs, flags, *parallel, stdout)
	saveTimes(bin, times, results)
	return report(results, time.Since(start), stdout)
}

// splitArgs splits the arguments at "--" into package patterns and flags
// for the test binaries; without patterns it tests ./... .
func splitArgs(args []string) (patterns, testFlags []string) {
	for i, a := range args {
		if a == "--" {
			patterns, testFlags = args[:i], args[i+1:]
			break
		}
	}
	if testFlags == nil {
		patterns = args
	}
	if len(patterns) == 0 {
		patterns = []string{"./..."}
	}
	return patterns, testFlags
}

// list returns the packages of patterns that have test files.
func list(dir string, patterns []string, skip *regexp.Regexp) ([]pkg, error) {
	cmd := exec.Command(wasmbuild.GoTool(), append([]string{"list", "-f", "{{if or .TestGoFiles .XTestGoFiles}}{{.ImportPath}}\t{{.Dir}}{{end}}"}, patterns...)...)
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
	names := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		path, dir, ok := strings.Cut(sc.Text(), "\t")
		if !ok || (skip != nil && skip.MatchString(path)) {
			continue
		}
		base := binaryName(path)
		if other, dup := names[base]; dup {
			return nil, fmt.Errorf("packages %s and %s would both build %s: testrun needs distinct last path elements", other, path, base)
		}
		names[base] = path
		pkgs = append(pkgs, pkg{ImportPath: path, Dir: dir, Binary: base})
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

// binDir is where the test binaries of this checkout live between runs.
func binDir(dir string, race bool) (string, error) {
	cmd := exec.Command(wasmbuild.GoTool(), "env", "GOMOD")
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %w", err)
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	sum := sha256.Sum256(bytes.TrimSpace(out))
	name := hex.EncodeToString(sum[:6])
	if race {
		name += "-race"
	}
	return filepath.Join(cache, "wasmagent", "testbin", name), nil
}

// build writes (or finds up to date) every package's test binary in bin.
func build(dir string, pkgs []pkg, bin string, race bool, stderr io.Writer) error {
	args := []string{"test", "-c", "-o", bin + string(filepath.Separator)}
	if race {
		args = append(args, "-race")
	}
	for _, p := range pkgs {
		args = append(args, p.ImportPath)
	}
	cmd := exec.Command(wasmbuild.GoTool(), args...)
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = stderr, stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("go test -c: %w", err)
	}
	for i := range pkgs {
		pkgs[i].Binary = filepath.Join(bin, pkgs[i].Binary)
	}
	return nil
}

// goroot is the GOROOT of the go command that builds the tests, or "".
var goroot = func() string {
	out, err := exec.Command(wasmbuild.GoTool(), "env", "GOROOT").Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}()

// runAll runs the binaries in order, parallel at a time, and prints each
// result as it comes.
func runAll(pkgs []pkg, flags []string, parallel int, stdout io.Writer) []result {
	results := make([]result, len(pkgs))
	var wg sync.WaitGroup
	var printMu sync.Mutex
	sem := make(chan struct{}, parallel)
	for i, p := range pkgs {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			results[i] = runOne(p, flags)
			printMu.Lock()
			defer printMu.Unlock()
			printResult(results[i], stdout)
		}()
	}
	wg.Wait()
	return results
}

func runOne(p pkg, flags []string) result {
	start := time.Now()
	cmd := exec.CommandContext(context.Background(), p.Binary, flags...)
	cmd.Dir = p.Dir
	cmd.Env = append(os.Environ(), "PWD="+p.Dir)
	if goroot != "" {
		// As go test does: the toolchain that built the tests first on
		// PATH, for tests that run go themselves.
		cmd.Env = append(cmd.Env, "PATH="+filepath.Join(goroot, "bin")+string(filepath.ListSeparator)+os.Getenv("PATH"))
	}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	r := result{pkg: p, out: out.Bytes(), err: err, elapsed: time.Since(start)}
	if st := cmd.ProcessState; st != nil {
		r.cpu = st.UserTime() + st.SystemTime()
	}
	return r
}

// printResult prints as go test does: the output of a failed package, or
// of one whose flags asked for it (-test.v), then ok or FAIL.
func printResult(r result, w io.Writer) {
	if r.err != nil || bytes.Contains(r.out, []byte("=== RUN")) {
		w.Write(r.out)
	}
	if r.err != nil {
		fmt.Fprintf(w, "FAIL\t%s\t%.3fs (%v)\n", r.pkg.ImportPath, r.elapsed.Seconds(), r.err)
		return
	}
	fmt.Fprintf(w, "ok  \t%s\t%.3fs\n", r.pkg.ImportPath, r.elapsed.Seconds())
}

// loadTimes reads how long each package took last time (seconds).
func loadTimes(bin string) map[string]float64 {
	times := map[string]float64{}
	if b, err := os.ReadFile(filepath.Join(bin, "elapsed.json")); err == nil {
		json.Unmarshal(b, &times) // a damaged file only loses the order
	}
	return times
}

// saveTimes records this run's times for the next run's order.
func saveTimes(bin string, times map[string]float64, results []result) {
	for _, r := range results {
		times[r.pkg.ImportPath] = r.elapsed.Seconds()
	}
	if b, err := json.Marshal(times); err == nil {
		os.WriteFile(filepath.Join(bin, "elapsed.json"), b, 0o600)
	}
}

// longestFirst orders pkgs by their last time, longest first, and
// packages never timed before all others: with a few run at once, a long
// package started last would run on alone at the end.
func longestFirst(pkgs []pkg, times map[string]float64) {
	key := func(p pkg) float64 {
		if t, ok := times[p.ImportPath]; ok {
			return t
		}
		return math.Inf(1)
	}
	sort.SliceStable(pkgs, func(i, j int) bool { return key(pkgs[i]) > key(pkgs[j]) })
}

// report prints the slowest packages and the failed ones, and returns the
// exit code.
func report(results []result, total time.Duration, w io.Writer) int {
	sorted := append([]result(nil), results...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].elapsed > sorted[j].elapsed })
	var slow []string
	for _, r := range sorted[:min(5, len(sorted))] {
		slow = append(slow, fmt.Sprintf("%s %.0fs", strings.TrimPrefix(r.pkg.ImportPath, "github.com/wasmagent/wasmagent/"), r.elapsed.Seconds()))
	}
	// CPU, not wall time, says what a run costs when the packages share
	// the cores.
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].cpu > sorted[j].cpu })
	var cpu time.Duration
	var most []string
	for i, r := range sorted {
		cpu += r.cpu
		if i < 5 {
			most = append(most, fmt.Sprintf("%s %.0fs", strings.TrimPrefix(r.pkg.ImportPath, "github.com/wasmagent/wasmagent/"), r.cpu.Seconds()))
		}
	}
	var failed []string
	for _, r := range results {
		if r.err != nil {
			failed = append(failed, r.pkg.ImportPath)
		}
	}
	fmt.Fprintf(w, "testrun: %d packages in %.0fs; slowest: %s\n", len(results), total.Seconds(), strings.Join(slow, ", "))
	fmt.Fprintf(w, "testrun: %.0fs of CPU in the tests; most: %s\n", cpu.Seconds(), strings.Join(most, ", "))
	if len(failed) > 0 {
		fmt.Fprintf(w, "testrun: FAIL: %s\n", strings.Join(failed, " "))
		return 1
	}
	return 0
}
