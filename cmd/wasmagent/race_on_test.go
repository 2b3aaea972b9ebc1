//go:build race

package main_test

// bigArgumentLen is the length of TestRunJSONBigArgument's argument:
// 600 KB under the race detector, which made the test's own reading of
// the 8 MB run's output (some 70 MB of JSON lines) take minutes of make
// test; the bound is the same property at either size, and make test
// runs the 8 MB argument again without -race.
const bigArgumentLen = 600_000
