package main

import (
	"strings"
	"testing"
)

// Jobs never timed anywhere first, the most test code first and a few
// tests of a package after whole packages; then by this checkout's time,
// or else by the other checkouts'.
func TestOrder(t *testing.T) {
	mk := func(name string, race bool, bytes int64, flags ...string) *job {
		return &job{name: name, race: race, pkg: pkg{ImportPath: name, TestBytes: bytes}, flags: flags}
	}
	jobs := []*job{
		mk("short", true, 9e6),
		mk("newsmall", true, 10),
		mk("rerun", false, 5000, "-test.run", "X"),
		mk("sharedlong", true, 1),
		mk("newbig", true, 1000),
		mk("long", true, 1),
		mk("plainlong", false, 1),
	}
	h := &history{
		own:    [2]map[string]float64{{"plainlong": 40}, {"short": 1, "long": 30, "sharedlong": 2}},
		shared: [2]map[string]float64{{}, {"sharedlong": 50, "long": 1}},
	}
	order(jobs, h)
	var got []string
	for _, j := range jobs {
		got = append(got, j.name)
	}
	// rerun: 5000 bytes but a -test.run; sharedlong has its own time (2s), not the shared one.
	if want := "newbig rerun newsmall plainlong long sharedlong short"; strings.Join(got, " ") != want {
		t.Errorf("order %s\nwant  %s", strings.Join(got, " "), want)
	}
}

func TestHasRunFilter(t *testing.T) {
	for flags, want := range map[string]bool{
		"":                      false,
		"-test.v":               false,
		"-test.run X":           true,
		"-test.run=X":           true,
		"-test.v -test.skip=Y":  true,
		"-test.runx":            false,
		"-test.timeout=1m -run": true,
	} {
		if got := hasRunFilter(strings.Fields(flags)); got != want {
			t.Errorf("hasRunFilter(%q) = %v", flags, got)
		}
	}
}
