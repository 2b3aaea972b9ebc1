package main

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Binaries ready and the build done: no job starts while the before
// step runs; all start once it has succeeded.
func TestPoolHoldsJobsUntilBefore(t *testing.T) {
	rec := newRecorder()
	jobs := jobsNamed("a", "b", "c")
	var beforeDone atomic.Bool
	var early []string
	var mu sync.Mutex
	run := func(j *job, flags []string) result {
		if !beforeDone.Load() {
			mu.Lock()
			early = append(early, j.name)
			mu.Unlock()
		}
		return rec.run(j, flags)
	}
	built := make(chan struct{})
	build := &fakeBuild{steps: []func(func(string)){func(ready func(string)) {
		ready("/bin/a")
		ready("/bin/b")
		ready("/bin/c")
		// Once this returns, the pool has had every binary in hand
		// for a turn of its loop: a job it wrongly started is under way.
		ready("/bin/not-a-job")
		close(built)
	}}}
	p := &pool{jobs: jobs, slots: 4, run: run, print: func(result) {}, say: func(string) {},
		before: func() error {
			<-built
			time.Sleep(50 * time.Millisecond) // lets a wrongly started job reach run
			beforeDone.Store(true)
			return nil
		}}
	results := p.scheduleWith([]builder{build})
	if len(early) > 0 {
		t.Errorf("jobs started before the before step ended: %v", early)
	}
	if len(rec.started) != 3 {
		t.Errorf("started %v, want all three", rec.started)
	}
	for _, r := range results {
		if r.err != nil {
			t.Errorf("%s: %v", r.job.name, r.err)
		}
	}
}

// The before step fails: the build is stopped, no job runs, each is
// reported not run with the step's error, and the run fails.
func TestPoolBeforeFails(t *testing.T) {
	rec := newRecorder()
	jobs := jobsNamed("a", "b")
	stopped := make(chan struct{})
	build := &fakeBuild{steps: []func(func(string)){
		func(ready func(string)) { ready("/bin/a") },
		func(func(string)) { <-stopped },
	}, err: errors.New("go test -c: signal: interrupt")}
	var out strings.Builder
	var said []string
	p := &pool{jobs: jobs, slots: 2, run: rec.run, print: func(r result) { printResult(r, &out) },
		say:    func(s string) { said = append(said, s) },
		before: func() error { return errors.New(`-before "make npm-deps": exit status 2`) },
		stop:   func() { close(stopped) }}
	results := p.scheduleWith([]builder{build})
	if len(rec.started) != 0 {
		t.Errorf("jobs ran after the before step failed: %v", rec.started)
	}
	if code := report(results, time.Second, &out); code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
	got := out.String()
	for _, want := range []string{
		"FAIL\ta\t0.000s (not run: -before \"make npm-deps\": exit status 2 before the tests could start)",
		"FAIL\tb\t0.000s (not run: -before",
		"testrun: FAIL: a; b\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
	if !strings.Contains(strings.Join(said, ""), "testrun: -before \"make npm-deps\": exit status 2\n") {
		t.Errorf("the failure is not said: %q", said)
	}
}

// A build fails while the before step runs: the jobs whose binaries it
// built run once the step has succeeded; the others are not run.
func TestPoolBuildFailsWhileBeforeRuns(t *testing.T) {
	rec := newRecorder()
	jobs := jobsNamed("built", "unbuilt")
	failing := make(chan struct{})
	build := &fakeBuild{steps: []func(func(string)){func(ready func(string)) { ready("/bin/built"); close(failing) }},
		err: errors.New("go test -c -race: exit status 1")}
	var out strings.Builder
	p := &pool{jobs: jobs, slots: 2, run: rec.run, print: func(r result) { printResult(r, &out) },
		say: func(string) {},
		before: func() error {
			<-failing
			time.Sleep(50 * time.Millisecond) // lets the build's failure reach the pool first
			return nil
		},
		stop: func() { t.Error("stop called, though the before step succeeded") }}
	p.scheduleWith([]builder{build})
	got := out.String()
	if strings.Join(rec.started, ",") != "built" || !strings.Contains(got, "FAIL\tunbuilt\t0.000s (not run: its test binary was not built (go test -c -race: exit status 1))") {
		t.Errorf("started %v\n%s", rec.started, got)
	}
}

// For real: the command runs in the module's directory, its output is
// shown, and the tests start after it; a failing one fails the run with
// its output, as testrun -c too.
func TestBeforeRuns(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a test binary")
	}
	dir := module(t, map[string]string{
		"a/a_test.go": `package a
import ("os"; "testing")
func TestMarker(t *testing.T) {
	if _, err := os.Stat("../marker"); err != nil { t.Fatal("the test started before -before ended:", err) }
}`,
	})
	bin := t.TempDir()
	var out, errOut bytes.Buffer
	code := run(dir, []string{"-o", bin, "-before", "sleep 1; echo making the marker; echo x > marker", "./..."}, &out, &errOut)
	got := out.String()
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, got, errOut.String())
	}
	for _, want := range []string{"making the marker\n", "testrun: -before done in ", "ok  \texample.com/m/a\t"} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
	if err := os.Remove(filepath.Join(dir, "marker")); err != nil {
		t.Fatal(err)
	}

	out.Reset()
	errOut.Reset()
	code = run(dir, []string{"-o", bin, "-before", "echo npm broke >&2; exit 3", "./..."}, &out, &errOut)
	all := out.String() + errOut.String()
	for _, want := range []string{"npm broke\n", "exit status 3", "FAIL\texample.com/m/a\t0.000s (not run: -before "} {
		if !strings.Contains(all, want) {
			t.Errorf("output lacks %q:\n%s", want, all)
		}
	}
	if code != 1 {
		t.Errorf("a failed -before: exit %d, want 1", code)
	}
	if code := run(dir, []string{"-c", "-o", bin, "-before", "exit 4", "./..."}, &out, &errOut); code != 1 {
		t.Errorf("testrun -c with a failed -before: exit %d, want 1", code)
	}
}
