// Command testrun is make test's go test: it builds the test binary of
// every package into a directory that outlives the run, and runs the
// binaries as jobs in one pool, a few at a time, each in its package's
// directory, reporting like go test.
//
//	go run ./internal/testrun [-c] [-p N] [-o DIR] [-timeout D] GROUP [:: GROUP]...
//
// where a GROUP is
//
//	[-race] [-skip REGEXP] [-env NAME=VALUE]... [PACKAGES] [-- TESTFLAGS]
//
// Each group is one run of its packages' test binaries: with or without
// the race detector, with the environment variables and test flags given.
// make test is one testrun of several groups (the race suite, then the
// tests run again without the race detector or with instance images
// off), so that all of them share the cores.
//
// go test links every test binary again on every run, even with a warm
// build cache: for this module's test binaries under the race detector
// (nats-server, OpenTelemetry, wazero, openai-go in most) that was a
// third of the CPU of a warm make test. go test -c -o DIR/ finds a binary
// it wrote before up to date and skips its link unless a source changed.
// A binary it links is run as soon as it is in place, while the others
// are still linking (RATIONALE.md, "Why is make test shaped this way?",
// "Why does testrun run every group in one pool?").
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	goruntime "runtime"
	"sync"
	"time"

	"github.com/wasmagent/wasmagent/internal/wasmbuild"
)

func main() {
	os.Exit(run(".", os.Args[1:], os.Stdout, os.Stderr))
}

// run tests the packages of the module in dir as the arguments say and
// returns the exit code.
func run(dir string, args []string, stdout, stderr io.Writer) int {
	opts, groups, err := parseArgs(args)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(stdout, usage)
		return 0
	}
	if err != nil {
		fmt.Fprintf(stderr, "testrun: %v\n%s", err, usage)
		return 2
	}
	// The before step and the builds write while the pool prints.
	var mu sync.Mutex
	stdout, stderr = &lockedWriter{mu: &mu, w: stdout}, &lockedWriter{mu: &mu, w: stderr}
	jobs, untested, err := plan(dir, groups)
	if err != nil {
		fmt.Fprintln(stderr, "testrun:", err)
		return 1
	}
	if len(jobs) == 0 {
		fmt.Fprintln(stdout, "testrun: no packages with tests")
		return 0
	}
	dirs, err := binDirs(dir, opts.out)
	if err == nil {
		err = placeBinaries(jobs, dirs)
	}
	if err != nil {
		fmt.Fprintln(stderr, "testrun:", err)
		return 1
	}
	// This checkout's binaries are in use (so not trimmed by any run,
	// this one or another checkout's); then what no run used for days
	// goes (wasmbuild.TrimTestCaches).
	for _, d := range []string{dirs.race, dirs.plain} {
		os.WriteFile(filepath.Join(d, "used"), nil, 0o600)
	}
	if opts.out == "" {
		freed, err := wasmbuild.TrimTestCaches()
		if err != nil {
			fmt.Fprintln(stderr, "testrun: trimming the test caches:", err)
		}
		if freed > 0 {
			fmt.Fprintf(stdout, "testrun: removed %d MB of test caches no run used for %d days\n", freed>>20, wasmbuild.TrimAge/(24*time.Hour))
		}
	}
	start := time.Now()
	history := loadHistory(dirs)
	order(jobs, history)
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	builds := buildsFor(ctx, dir, jobs, untested, opts.vet, stdout, stderr)
	var before func() error
	if opts.before != "" {
		before = func() error { return runBefore(dir, opts.before, stdout, stderr) }
	}
	if opts.buildOnly {
		return buildAll(builds, before, stderr)
	}
	flags := []string{"-test.count=1", "-test.paniconexit0", "-test.timeout=" + opts.timeout.String()}
	p := &pool{jobs: jobs, slots: opts.parallel, cpus: goruntime.NumCPU(), flags: flags, run: runOne, print: func(r result) { printResult(r, stdout) },
		say: func(s string) { fmt.Fprint(stdout, s) }, before: before, stop: stop}
	results := p.schedule(builds)
	history.save(results)
	return report(results, time.Since(start), stdout)
}

const usage = `usage: testrun [-c] [-p N] [-o DIR] [-timeout D] [-vet all|off] [-before CMD] GROUP [:: GROUP]...
  GROUP is [-race] [-skip REGEXP] [-env NAME=VALUE]... [PACKAGES] [-- TESTFLAGS]
  -c          build the test binaries, run none
  -p N        jobs at once (default: twice the CPUs)
  -o DIR      keep the binaries in DIR/race and DIR/plain (default: under the user cache directory)
  -timeout D  each test binary's -test.timeout (default 10m)
  -vet all    vet every package named, with or without tests, with go vet's analyzers,
              in the first build (the first group's flavour); later builds vet nothing
  -vet off    vet nothing (default: make check vets)
  -before CMD run CMD with sh while the binaries build; no test starts before it has succeeded
  -race       build the group's binaries with the race detector
  -skip RE    leave out the packages whose import path matches RE
  -env N=V    set N=V in the environment of the group's test binaries
`

// options are the flags for the whole run.
type options struct {
	parallel  int
	timeout   time.Duration
	buildOnly bool
	out       string
	vet       string // "all" or "off"
	before    string // a command for sh, run while the binaries build
}

// binDirs says where the test binaries live between runs: under -o DIR,
// DIR/race and DIR/plain; else one pair of directories per checkout
// under the user cache directory.
func binDirs(dir, out string) (flavours, error) {
	if out != "" {
		abs, err := filepath.Abs(out)
		if err != nil {
			return flavours{}, err
		}
		return flavours{race: filepath.Join(abs, "race"), plain: filepath.Join(abs, "plain")}, nil
	}
	base, err := checkoutDir(dir)
	if err != nil {
		return flavours{}, err
	}
	return flavours{race: base + "-race", plain: base}, nil
}

// flavours are the two directories of test binaries: with and without
// the race detector.
type flavours struct{ race, plain string }

func (f flavours) of(race bool) string {
	if race {
		return f.race
	}
	return f.plain
}

// defaultParallel is -p's default: twice the CPUs, since many packages
// mostly wait (on child processes, Node, timeouts).
var defaultParallel = 2 * goruntime.NumCPU()

// lockedWriter writes to w one write at a time, holding mu, which the
// writers of one output share.
type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(b)
}
