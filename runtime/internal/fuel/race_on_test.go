//go:build race

package fuel

// Under the race detector TestOutputIsTheRecordedOne checks the first 60
// generated modules and their mutations, and not the spec modules: the
// detector adds nothing to a byte comparison. make test runs every case
// again without -race.
const (
	raceOn      = true
	goldenSeeds = 60
)
