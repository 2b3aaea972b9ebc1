//go:build race

package eventwire_test

// bigArgumentSize is the argument of TestBigArgument: 600 KB under the race
// detector, whose instrumentation makes 8 MB take minutes; the bound is
// the same property at either size, and cmd/wasmagent's
// TestRunJSONBigArgument streams 8 MB through an uninstrumented binary.
const bigArgumentSize = 600_000
