package main

import (
	"bytes"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"
)

// printResult prints as go test does: the output of a failed job, or of
// one whose flags asked for it (-test.v), then ok or FAIL, the job's
// name and its time; then the CPU its processes used.
func printResult(r result, w io.Writer) {
	if r.err != nil || bytes.Contains(r.out, []byte("=== RUN")) {
		w.Write(r.out)
	}
	if r.err != nil {
		fmt.Fprintf(w, "FAIL\t%s\t%.3fs (%v)\tCPU %.1fs\n", r.job.name, r.elapsed.Seconds(), r.err, (r.user + r.sys).Seconds())
		return
	}
	fmt.Fprintf(w, "ok  \t%s\t%.3fs\tCPU %.1fs\n", r.job.name, r.elapsed.Seconds(), (r.user + r.sys).Seconds())
}

// report prints the slowest jobs, the CPU they used, user and system
// apart, and the failed ones, and returns the exit code.
func report(results []result, total time.Duration, w io.Writer) int {
	sorted := append([]result(nil), results...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].elapsed > sorted[j].elapsed })
	var slow []string
	for _, r := range sorted[:min(5, len(sorted))] {
		slow = append(slow, fmt.Sprintf("%s %.0fs", short(r.job.name), r.elapsed.Seconds()))
	}
	// CPU, not wall time, says what a run costs when the jobs share the
	// cores; system time apart, since much of it is the kernel's work
	// for the tests' processes, memory maps and files.
	cpu := func(r result) time.Duration { return r.user + r.sys }
	sort.SliceStable(sorted, func(i, j int) bool { return cpu(sorted[i]) > cpu(sorted[j]) })
	var user, sys time.Duration
	var most []string
	for i, r := range sorted {
		user += r.user
		sys += r.sys
		if i < 5 {
			most = append(most, fmt.Sprintf("%s %.0fs (sys %.0fs)", short(r.job.name), cpu(r).Seconds(), r.sys.Seconds()))
		}
	}
	var failed []string
	for _, r := range results {
		if r.err != nil {
			failed = append(failed, r.job.name)
		}
	}
	fmt.Fprintf(w, "testrun: %d jobs in %.0fs; slowest: %s\n", len(results), total.Seconds(), strings.Join(slow, ", "))
	fmt.Fprintf(w, "testrun: %.0fs of CPU in the tests, user %.0fs, system %.0fs; most: %s\n", (user + sys).Seconds(), user.Seconds(), sys.Seconds(), strings.Join(most, ", "))
	if len(failed) > 0 {
		fmt.Fprintf(w, "testrun: FAIL: %s\n", strings.Join(failed, "; "))
		return 1
	}
	return 0
}

// short is a job's name without this module's path.
func short(name string) string {
	return strings.TrimPrefix(name, "github.com/wasmagent/wasmagent/")
}
