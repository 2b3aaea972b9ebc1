//go:build race

package rpc_test

// boundedTextSize is the answer of TestRPCEventsBounded: 200 KB under the
// race detector, whose instrumentation of the JSON written and read made
// 800 KB take a minute of make test; the bounds are the same property at
// either size (200 KB is still three times the small floor), and make
// test runs the 800 KB answer again without -race.
const boundedTextSize = 200_000
