//go:build race

package main_test

// bigArgumentLen and bigArgumentFloor are TestRunJSONBigArgument's
// argument and [events] floor: under the race detector, which made the
// test's own reading of the 8 MB run's output (some 70 MB of JSON lines)
// take minutes of make test, 600 KB over a 300 KB floor — the full-size
// run (8 MB over the default 4 MiB, which make test runs again without
// -race) scaled down with the same 2:1 of message to floor, so that the
// budget is at work here too and the test reads a fraction of the lines.
const (
	bigArgumentLen   = 600_000
	bigArgumentFloor = 300_000
)
