package main

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeBuild makes its binaries ready one by one, and between two it
// waits for what the test says (a job started), so that the test sees
// what the pool does while the build is still running.
type fakeBuild struct {
	steps []func(ready func(string))
	err   error
}

func (b *fakeBuild) run(ready func(string)) (string, error) {
	for _, s := range b.steps {
		s(ready)
	}
	if b.err != nil {
		return "", b.err
	}
	return "built\n", nil
}

// recorder is the pool's run: it records what started, with which
// flags, and how many ran at once.
type recorder struct {
	mu       sync.Mutex
	started  []string
	flags    map[string]string
	now, max int
	// procs is the GOMAXPROCS of each job started; running, at each
	// start, the sum of the running jobs' and how many ran.
	procs    map[string]int
	procsNow int
	running  [][2]int
	// releaseAt, if more than 0: when that many jobs have started,
	// every held job is let go.
	releaseAt int
	startedC  chan string
	hold      map[string]chan struct{} // jobs that wait to be let go
}

func newRecorder() *recorder {
	return &recorder{flags: map[string]string{}, procs: map[string]int{}, startedC: make(chan string, 100), hold: map[string]chan struct{}{}}
}

func (r *recorder) run(j *job, flags []string) result {
	r.mu.Lock()
	r.started = append(r.started, j.name)
	r.flags[j.name] = strings.Join(flags, " ")
	r.now++
	r.max = max(r.max, r.now)
	r.procs[j.name] = j.procs
	r.procsNow += j.procs
	r.running = append(r.running, [2]int{r.procsNow, r.now})
	if r.releaseAt > 0 && len(r.started) >= r.releaseAt {
		for name, h := range r.hold {
			close(h)
			delete(r.hold, name)
		}
	}
	h := r.hold[j.name]
	r.mu.Unlock()
	r.startedC <- j.name
	if h != nil {
		<-h
	}
	r.mu.Lock()
	r.now--
	r.procsNow -= j.procs
	r.mu.Unlock()
	var err error
	if strings.HasPrefix(j.name, "bad") {
		err = errors.New("exit status 1")
	}
	return result{job: j, err: err, elapsed: time.Millisecond}
}

// waitStarted waits for the job named to start; a deadlock fails the
// test rather than hang it.
func (r *recorder) waitStarted(t *testing.T, name string) {
	t.Helper()
	for {
		select {
		case got := <-r.startedC:
			if got == name {
				return
			}
		case <-time.After(time.Minute):
			t.Fatalf("%s never started (started: %v)", name, r.started)
		}
	}
}

func jobsNamed(names ...string) []*job {
	var jobs []*job
	for _, n := range names {
		jobs = append(jobs, &job{name: n, binary: "/bin/" + strings.Fields(n)[0], flags: []string{"-test.run", n}})
	}
	return jobs
}

// A job starts as soon as its binary is ready, while the build goes on,
// in the jobs' order among those ready; a running build holds one slot.
func TestPoolStartsEachJobWhenItsBinaryIsReady(t *testing.T) {
	rec := newRecorder()
	jobs := jobsNamed("first", "second", "third")
	rec.hold["third"] = make(chan struct{})
	build := &fakeBuild{steps: []func(func(string)){
		func(ready func(string)) { ready("/bin/third") },
		// Pipelined: third runs before the build has linked anything else.
		func(func(string)) { rec.waitStarted(t, "third") },
		func(ready func(string)) { ready("/bin/second"); ready("/bin/first") },
	}}
	var printed []string
	var mu sync.Mutex
	var release sync.Once
	p := &pool{jobs: jobs, slots: 2, flags: []string{"-test.count=1"}, run: rec.run, print: func(r result) {
		mu.Lock()
		defer mu.Unlock()
		printed = append(printed, r.job.name)
		if r.job.name != "third" {
			// third ends only after another job has: once the build is
			// done, two run at once, first before second.
			release.Do(func() { close(rec.hold["third"]) })
		}
	}, say: func(string) {}}
	results := p.scheduleWith([]builder{build})
	if len(results) != 3 || len(printed) != 3 {
		t.Fatalf("%d results, %d printed", len(results), len(printed))
	}
	for i, r := range results {
		if r.job != jobs[i] {
			t.Errorf("result %d is %s, want the jobs' order", i, r.job.name)
		}
	}
	if got := strings.Join(rec.started, " "); got != "third first second" {
		t.Errorf("started %s, want third (ready first), then first, second", got)
	}
	if rec.flags["second"] != "-test.count=1 -test.run second" {
		t.Errorf("flags %q", rec.flags["second"])
	}
}

// With every binary ready, slots jobs run at once and no more.
func TestPoolRunsSlotsAtOnce(t *testing.T) {
	for _, slots := range []int{1, 2, 3} {
		rec := newRecorder()
		names := []string{"a", "b", "c", "d", "e"}
		jobs := jobsNamed(names...)
		build := &fakeBuild{steps: []func(func(string)){func(ready func(string)) {
			for _, n := range names {
				ready("/bin/" + n)
			}
		}}}
		p := &pool{jobs: jobs, slots: slots, run: rec.run, print: func(result) {}, say: func(string) {}}
		p.scheduleWith([]builder{build})
		if rec.max > slots || len(rec.started) != len(names) {
			t.Errorf("slots %d: %d at once, %d started", slots, rec.max, len(rec.started))
		}
		if got := strings.Join(rec.started, ""); got != "abcde" && slots == 1 {
			t.Errorf("slots 1: order %s", got)
		}
	}
}

// A failed build: the jobs whose binaries it put in place run; the
// others, and those of the builds after it, fail as not run, each named,
// with the build's error; a failed job fails alone.
func TestPoolBuildFailure(t *testing.T) {
	rec := newRecorder()
	jobs := jobsNamed("built", "bad one", "stale", "later (without -race)")
	jobs[3].binary = "/plain/later"
	first := &fakeBuild{
		steps: []func(func(string)){func(ready func(string)) { ready("/bin/built"); ready("/bin/bad") }},
		err:   errors.New("go test -c -race: exit status 1"),
	}
	second := &fakeBuild{steps: []func(func(string)){func(ready func(string)) { ready("/plain/later") }}}
	var out strings.Builder
	var mu sync.Mutex
	p := &pool{jobs: jobs, slots: 4, run: rec.run, print: func(r result) {
		mu.Lock()
		defer mu.Unlock()
		printResult(r, &out)
	}, say: func(string) {}}
	results := p.scheduleWith([]builder{first, second})
	if code := report(results, time.Second, &out); code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
	got := out.String()
	for _, want := range []string{
		"ok  \tbuilt\t",
		"FAIL\tbad one\t",
		"FAIL\tstale\t0.000s (not run: its test binary was not built (go test -c -race: exit status 1))",
		"FAIL\tlater (without -race)\t0.000s (not run",
		"testrun: FAIL: bad one; stale; later (without -race)\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
	if s := strings.Join(rec.started, ","); s != "built,bad one" && s != "bad one,built" {
		t.Errorf("started %s", s)
	}
}

// Many jobs, builds and slots: every job runs once, its result in its
// place, whatever the order binaries land in.
func TestPoolEveryJobOnce(t *testing.T) {
	for seed := range 20 {
		n := 1 + seed%9
		var names []string
		for i := range n {
			names = append(names, fmt.Sprintf("j%d", i))
		}
		jobs := jobsNamed(names...)
		landing := rand.New(rand.NewPCG(uint64(seed), 1)).Perm(n)
		var builds []builder
		for b := range 1 + seed%3 {
			var bins []string
			for i := b; i < n; i += 1 + seed%3 {
				bins = append(bins, "/bin/"+names[landing[i]])
			}
			builds = append(builds, &fakeBuild{steps: []func(func(string)){func(ready func(string)) {
				for _, bin := range bins {
					ready(bin)
				}
			}}})
		}
		rec := newRecorder()
		p := &pool{jobs: jobs, slots: 1 + seed%4, run: rec.run, print: func(result) {}, say: func(string) {}}
		results := p.scheduleWith(builds)
		if len(rec.started) != n {
			t.Errorf("seed %d: %d of %d started: %v", seed, len(rec.started), n, rec.started)
		}
		for i, r := range results {
			if r.job != jobs[i] {
				t.Errorf("seed %d: result %d out of place", seed, i)
			}
		}
	}
}

// The pool returns only when its builds have too, and prints what each
// said, even when every job has ended before its build returned.
func TestPoolWaitsForTheBuild(t *testing.T) {
	rec := newRecorder()
	jobs := jobsNamed("a", "b")
	allEnded := make(chan struct{})
	build := &fakeBuild{steps: []func(func(string)){
		func(ready func(string)) { ready("/bin/a"); ready("/bin/b") },
		func(func(string)) { <-allEnded },
	}}
	var said []string
	ended := 0
	p := &pool{jobs: jobs, slots: 4, run: rec.run, print: func(result) {
		if ended++; ended == len(jobs) {
			close(allEnded)
		}
	}, say: func(s string) { said = append(said, s) }}
	p.scheduleWith([]builder{build})
	if len(said) != 1 || said[0] != "built\n" {
		t.Errorf("said %q, want the build's line once", said)
	}
}

// Jobs share the cores: whatever the cores, slots and jobs, the jobs
// running at once never have more GOMAXPROCS between them than the
// cores (or one each, where more jobs than cores run), each has at
// least one, and a job that starts alone has every core; a pool not
// told the cores leaves GOMAXPROCS to Go.
func TestPoolSharesTheCores(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 13))
	for c := range 200 {
		cpus, slots, n := rng.IntN(9), 1+rng.IntN(12), 1+rng.IntN(15)
		var names []string
		for i := range n {
			names = append(names, fmt.Sprintf("j%d", i))
		}
		rec := newRecorder()
		// Some jobs are held until the slots are full, so that several
		// run at once whatever the goroutines' timing.
		last := names[n-1]
		rec.releaseAt = min(n, slots)
		for _, name := range names {
			if rng.IntN(2) == 0 {
				rec.hold[name] = make(chan struct{})
			}
		}
		build := &fakeBuild{steps: []func(func(string)){func(ready func(string)) {
			for _, name := range names {
				ready("/bin/" + name)
			}
		}}}
		p := &pool{jobs: jobsNamed(names...), slots: slots, cpus: cpus, run: rec.run, print: func(result) {}, say: func(string) {}}
		p.scheduleWith([]builder{build})
		for _, at := range rec.running {
			if sum, running := at[0], at[1]; cpus > 0 && sum > max(cpus, running) {
				t.Fatalf("case %d (cpus %d, slots %d, %d jobs): %d jobs running with GOMAXPROCS %d between them", c, cpus, slots, n, running, sum)
			}
		}
		for name, procs := range rec.procs {
			if cpus == 0 && procs != 0 || cpus > 0 && procs < 1 {
				t.Fatalf("case %d (cpus %d): %s got GOMAXPROCS %d", c, cpus, name, procs)
			}
		}
		if n == 1 && rec.procs[last] != cpus {
			t.Fatalf("case %d: the only job got GOMAXPROCS %d of %d cores", c, rec.procs[last], cpus)
		}
	}
	p := &pool{slots: 4, cpus: 2}
	if got := []int{p.procsFor(9), p.procsFor(2), p.procsFor(1)}; fmt.Sprint(got) != "[1 1 2]" {
		t.Errorf("2 cores, 4 slots: GOMAXPROCS %v for 9, 2, 1 jobs left, want [1 1 2]", got)
	}
}

// A job's process gets the GOMAXPROCS the pool gave it and the race
// detector's exit without a sleep, unless the user's environment set
// them.
func TestRunOneSetsTheRuntimesEnvironment(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh:", err)
	}
	env := func(procs int) string {
		t.Helper()
		r := runOne(&job{name: "env", binary: sh, procs: procs, pkg: pkg{Dir: t.TempDir()}}, []string{"-c", `printf '%s|%s' "$GOMAXPROCS" "$GORACE"`})
		if r.err != nil {
			t.Fatalf("%v: %s", r.err, r.out)
		}
		return string(r.out)
	}
	t.Setenv("GOMAXPROCS", "")
	os.Unsetenv("GOMAXPROCS")
	t.Setenv("GORACE", "")
	os.Unsetenv("GORACE")
	if got := env(1); got != "1|atexit_sleep_ms=0" {
		t.Errorf("got %q, want GOMAXPROCS 1 and atexit_sleep_ms=0", got)
	}
	if got := env(0); got != "|atexit_sleep_ms=0" {
		t.Errorf("procs 0: got %q, want GOMAXPROCS unset", got)
	}
	t.Setenv("GOMAXPROCS", "3")
	t.Setenv("GORACE", "halt_on_error=1")
	if got := env(1); got != "3|halt_on_error=1 atexit_sleep_ms=0" {
		t.Errorf("user's GOMAXPROCS=3, GORACE=halt_on_error=1: got %q", got)
	}
	t.Setenv("GORACE", "atexit_sleep_ms=50")
	if got := env(1); got != "3|atexit_sleep_ms=50" {
		t.Errorf("user's atexit_sleep_ms=50: got %q", got)
	}
}
