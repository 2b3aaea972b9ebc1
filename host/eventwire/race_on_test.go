//go:build race

package eventwire_test

// bigArgumentSize and bigArgumentFloor are TestBigArgument's argument and
// ModePi's floor: under the race detector, whose instrumentation makes
// 8 MB take minutes, 600 KB over a 300 KB floor, the full-size run
// (race_off_test.go: 8 MB over the default 4 MiB) scaled down with the
// same ratio of message to floor, so that past the floor the bound is at
// work in this run too. cmd/wasmagent's TestRunJSONBigArgument streams
// 8 MB through an uninstrumented binary.
const (
	bigArgumentSize  = 600_000
	bigArgumentFloor = 300_000
)
