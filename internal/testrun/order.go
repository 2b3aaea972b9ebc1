package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
)

// history is how long each job took before: this checkout's times, and,
// for jobs this checkout never ran, the median of the other checkouts'
// of this machine (other worktrees and clones of the module).
type history struct {
	dirs   flavours
	own    [2]map[string]float64 // [plain, race]: job name → seconds
	shared [2]map[string]float64
}

const timesFile = "elapsed.json"

func idx(race bool) int {
	if race {
		return 1
	}
	return 0
}

// loadHistory reads the times of the last runs. A damaged file only
// loses the order.
func loadHistory(dirs flavours) *history {
	h := &history{dirs: dirs}
	for _, race := range []bool{false, true} {
		dir := dirs.of(race)
		h.own[idx(race)] = readTimes(filepath.Join(dir, timesFile))
		all := map[string][]float64{}
		others, _ := filepath.Glob(filepath.Join(testbinRoot(), "*", timesFile))
		for _, f := range others {
			other := filepath.Dir(f)
			if other == dir || strings.HasSuffix(other, "-race") != race {
				continue
			}
			for name, t := range readTimes(f) {
				all[name] = append(all[name], t)
			}
		}
		h.shared[idx(race)] = map[string]float64{}
		for name, ts := range all {
			slices.Sort(ts)
			h.shared[idx(race)][name] = ts[len(ts)/2]
		}
	}
	return h
}

func readTimes(path string) map[string]float64 {
	times := map[string]float64{}
	if b, err := os.ReadFile(path); err == nil {
		json.Unmarshal(b, &times)
	}
	return times
}

// time returns a job's last time, or its median time in the other
// checkouts; ok is false if neither has it.
func (h *history) time(j *job) (float64, bool) {
	if t, ok := h.own[idx(j.race)][j.name]; ok {
		return t, true
	}
	t, ok := h.shared[idx(j.race)][j.name]
	return t, ok
}

// save records this run's times for the next run's order.
func (h *history) save(results []result) {
	for _, r := range results {
		if r.elapsed > 0 {
			h.own[idx(r.job.race)][r.job.name] = r.elapsed.Seconds()
		}
	}
	for _, race := range []bool{false, true} {
		if len(h.own[idx(race)]) == 0 {
			continue
		}
		if b, err := json.Marshal(h.own[idx(race)]); err == nil {
			os.WriteFile(filepath.Join(h.dirs.of(race), timesFile), b, 0o600)
		}
	}
}

// order sorts the jobs longest first, so that no long job starts last
// and runs on alone at the end: by their time, or for a job never timed,
// on this checkout or another, by an estimate from the size of its
// package's tests (estimate).
func order(jobs []*job, h *history) {
	for _, j := range jobs {
		j.weight, j.timed = h.time(j)
	}
	perByte := secondsPerTestByte(jobs)
	for _, j := range jobs {
		if !j.timed {
			j.weight = estimate(j, perByte)
		}
	}
	sort.SliceStable(jobs, func(a, b int) bool { return jobs[a].weight > jobs[b].weight })
}

// untimedShare is the part of a package's time assumed for a run of a
// few of its tests (-test.run) never timed.
const untimedShare = 0.1

// estimate is a job's time from its package's test code: the more tests,
// the longer. Over this module's recorded times, the size of a
// package's _test.go files ranks the packages by time with a Spearman
// correlation of 0.72 (RATIONALE.md, "Why does testrun run every group
// in one pool?").
func estimate(j *job, perByte float64) float64 {
	t := float64(j.pkg.TestBytes) * perByte
	if hasRunFilter(j.flags) {
		t *= untimedShare
	}
	return t
}

// secondsPerTestByte is the median, over the timed jobs that run all of
// their package's tests, of seconds per byte of test code; 1 when there
// are none, since then only the estimates' order matters.
func secondsPerTestByte(jobs []*job) float64 {
	var ratios []float64
	for _, j := range jobs {
		if j.timed && j.pkg.TestBytes > 0 && !hasRunFilter(j.flags) {
			ratios = append(ratios, j.weight/float64(j.pkg.TestBytes))
		}
	}
	if len(ratios) == 0 {
		return 1
	}
	slices.Sort(ratios)
	return ratios[len(ratios)/2]
}

// hasRunFilter says whether test flags pick some of the tests only.
func hasRunFilter(flags []string) bool {
	for _, f := range flags {
		for _, name := range []string{"-test.run", "-run", "-test.list", "-test.skip"} {
			if f == name || len(f) > len(name) && f[:len(name)+1] == name+"=" {
				return true
			}
		}
	}
	return false
}
