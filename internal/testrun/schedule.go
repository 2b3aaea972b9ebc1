package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/wasmagent/wasmagent/internal/wasmbuild"
)

// pool runs jobs, slots at a time, each as soon as its binary is ready,
// the first ready in the jobs' order first.
type pool struct {
	jobs  []*job
	slots int
	// cpus, if more than 0, are the cores the jobs share: a job started
	// while others will run beside it gets its share of them as its
	// GOMAXPROCS (see procsFor).
	cpus  int
	flags []string // before each job's own test flags
	run   func(j *job, flags []string) result
	print func(result)
	say   func(string) // prints a line of testrun's own; print and say are called one at a time
	// before, if set, runs while the builds do, and no job starts
	// before it has returned nil; if it fails, stop interrupts the
	// builds and every job is reported not run.
	before func() error
	stop   func()
}

// result is one job's run.
type result struct {
	job       *job
	out       []byte
	err       error
	elapsed   time.Duration
	user, sys time.Duration // CPU of the test binary and its children
}

// builder makes binaries ready: run calls ready with each, and returns
// when it is done, with a line to print; after an error, the binaries it
// did not call ready with are not built.
type builder interface {
	run(ready func(binary string)) (said string, err error)
}

// poolEvent is what the scheduler waits for: a binary ready, a build
// ended, or a job ended.
type poolEvent struct {
	binary   string
	buildErr error
	ended    bool // a build ended (buildErr says how)
	said     string
	done     *result
	index    int
	before   bool // the before step ended (buildErr says how)
}

// schedule runs the builds one after another while it runs the jobs, and
// returns the jobs' results in the jobs' order. A running build takes
// one of the slots: go runs compiles and links on every CPU.
func (p *pool) schedule(builds []*goBuild) []result {
	bs := make([]builder, len(builds))
	for i, b := range builds {
		bs[i] = b
	}
	return p.scheduleWith(bs)
}

func (p *pool) scheduleWith(builds []builder) []result {
	events := make(chan poolEvent)
	go func() {
		for _, b := range builds {
			said, err := b.run(func(bin string) { events <- poolEvent{binary: bin} })
			events <- poolEvent{ended: true, buildErr: err, said: said}
			if err != nil {
				break // the jobs of later builds are reported not run
			}
		}
	}()
	held := p.before != nil // no job starts yet
	if held {
		go func() { events <- poolEvent{before: true, buildErr: p.before()} }()
	}
	beforeRunning := held
	results := make([]result, len(p.jobs))
	ready := map[string]bool{}
	started := make([]bool, len(p.jobs))
	buildsLeft, running, left := len(builds), 0, len(p.jobs)
	var failures []string // why the jobs not started will never start
	// Until every job has ended, every build and the before step too: a
	// build's last binaries may be run, and end, before the build has
	// returned.
	for left > 0 || buildsLeft > 0 || beforeRunning {
		limit := p.slots
		if buildsLeft > 0 && limit > 1 {
			limit--
		}
		for i, j := range p.jobs {
			if running >= limit || held {
				break
			}
			if started[i] || !ready[j.binary] {
				continue
			}
			started[i], running = true, running+1
			j.procs = p.procsFor(left)
			go func() {
				r := p.run(j, append(append([]string(nil), p.flags...), j.flags...))
				events <- poolEvent{done: &r, index: i}
			}()
		}
		if len(failures) > 0 && running == 0 && !beforeRunning || buildsLeft == 0 && running == 0 && !held {
			// Nothing runs and nothing more will start: a build or the
			// before step failed.
			for i, j := range p.jobs {
				if !started[i] {
					started[i] = true
					results[i] = result{job: j, err: fmt.Errorf("not run: %s", strings.Join(failures, "; "))}
					p.print(results[i])
					left--
				}
			}
			if buildsLeft == 0 {
				break
			}
		}
		e := <-events
		switch {
		case e.done != nil:
			results[e.index] = *e.done
			p.print(*e.done)
			running--
			left--
		case e.before:
			beforeRunning = false
			if e.buildErr != nil {
				p.say(fmt.Sprintf("testrun: %v\n", e.buildErr))
				failures = append(failures, e.buildErr.Error()+" before the tests could start")
				if p.stop != nil && buildsLeft > 0 {
					p.stop()
				}
				continue
			}
			held = false
		case e.ended:
			buildsLeft--
			if e.said != "" {
				p.say(e.said)
			}
			if e.buildErr != nil {
				failures = append(failures, fmt.Sprintf("its test binary was not built (%s)", e.buildErr))
				buildsLeft = 0
			}
		default:
			ready[e.binary] = true
		}
	}
	return results
}

// procsFor is the GOMAXPROCS of a job started while left jobs have not
// ended (it, those running and those waiting): the cores shared among
// as many of them as run at once, at least 1; 0 (the Go default, every
// core) when the pool was not told the cores. Test processes run as
// several jobs on each core (slots) spend a tenth or more of their CPU,
// with GOMAXPROCS at every core, in schedulers spinning for work that
// another process's thread holds the core for; at one each, that CPU
// goes to the tests. The last jobs, alone, get the cores they would
// otherwise leave idle.
func (p *pool) procsFor(left int) int {
	if p.cpus <= 0 {
		return 0
	}
	return max(1, p.cpus/max(1, min(p.slots, left)))
}

// runOne runs a job's test binary in its package's directory.
func runOne(j *job, flags []string) result {
	start := time.Now()
	cmd := exec.CommandContext(context.Background(), j.binary, flags...)
	cmd.Dir = j.pkg.Dir
	cmd.Env = append(os.Environ(), "PWD="+j.pkg.Dir)
	if goroot != "" {
		// As go test does: the toolchain that built the tests first on
		// PATH, for tests that run go themselves.
		cmd.Env = append(cmd.Env, "PATH="+filepath.Join(goroot, "bin")+string(filepath.ListSeparator)+os.Getenv("PATH"))
	}
	cmd.Env = append(cmd.Env, runtimeEnv(j.procs)...)
	cmd.Env = append(cmd.Env, j.env...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	r := result{job: j, out: out.Bytes(), err: err, elapsed: time.Since(start)}
	if st := cmd.ProcessState; st != nil {
		r.user, r.sys = st.UserTime(), st.SystemTime()
	}
	return r
}

// runtimeEnv is what a job's environment sets for the Go runtime, where
// the user's environment did not: GOMAXPROCS (procs, unless 0), and the
// race detector's atexit_sleep_ms=0. By default a process built with the
// race detector sleeps a second before it exits, so that goroutines
// still running can report their races; a test binary has waited for
// its tests by then, and the sleep was a second of wall time for every
// job and for every race-built child process a test runs.
func runtimeEnv(procs int) []string {
	var env []string
	if procs > 0 && os.Getenv("GOMAXPROCS") == "" {
		env = append(env, fmt.Sprintf("GOMAXPROCS=%d", procs))
	}
	if r := os.Getenv("GORACE"); !strings.Contains(r, "atexit_sleep_ms") {
		env = append(env, "GORACE="+strings.TrimSpace(r+" atexit_sleep_ms=0"))
	}
	return env
}

// goroot is the GOROOT of the go command that builds the tests, or "".
var goroot = func() string {
	out, err := exec.Command(wasmbuild.GoTool(), "env", "GOROOT").Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}()
