package main

import (
	"fmt"
	"strings"
	"testing"
)

// Jobs by this checkout's time, else by the other checkouts', else by an
// estimate: their test code at the median seconds per byte of the timed
// ones, a tenth of it for a run of a few tests.
func TestOrder(t *testing.T) {
	mk := func(name string, race bool, bytes int64, flags ...string) *job {
		return &job{name: name, race: race, pkg: pkg{ImportPath: name, TestBytes: bytes}, flags: flags}
	}
	jobs := []*job{
		mk("short", true, 9e6), // much code, but timed: 1s
		mk("newsmall", true, 100),
		mk("rerun", false, 5000, "-test.run", "X"),
		mk("sharedlong", true, 1000),
		mk("newbig", true, 2000),
		mk("long", true, 1000),
		mk("plainlong", false, 1000),
	}
	h := &history{
		own:    [2]map[string]float64{{"plainlong": 40}, {"short": 1, "long": 30, "sharedlong": 2}},
		shared: [2]map[string]float64{{}, {"sharedlong": 50, "long": 1}},
	}
	// Seconds per byte: short 1/9e6, sharedlong 2/1000, long 30/1000,
	// plainlong 40/1000: median 0.03. newbig 60s, rerun 15s, newsmall 3s.
	order(jobs, h)
	var got []string
	for _, j := range jobs {
		got = append(got, fmt.Sprintf("%s:%.0f", j.name, j.weight))
	}
	if want := "newbig:60 plainlong:40 long:30 rerun:15 newsmall:3 sharedlong:2 short:1"; strings.Join(got, " ") != want {
		t.Errorf("order %s\nwant  %s", strings.Join(got, " "), want)
	}
}

// With no time anywhere (a first run on a new machine), the packages
// with the most test code first, runs of a few tests as a tenth.
func TestOrderWithoutHistory(t *testing.T) {
	jobs := []*job{
		{name: "a", pkg: pkg{TestBytes: 10}},
		{name: "b (images off)", pkg: pkg{TestBytes: 500}, flags: []string{"-test.run=X"}},
		{name: "c", pkg: pkg{TestBytes: 100}},
		{name: "d", pkg: pkg{TestBytes: 20}},
	}
	order(jobs, &history{own: [2]map[string]float64{{}, {}}, shared: [2]map[string]float64{{}, {}}})
	var got []string
	for _, j := range jobs {
		got = append(got, j.name)
	}
	if s := strings.Join(got, ","); s != "c,b (images off),d,a" {
		t.Errorf("order %s", s)
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
