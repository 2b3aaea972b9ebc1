//go:build !race

package rpc_test

// boundedTextSize is the answer of TestRPCEventsBounded (see
// race_on_test.go).
const boundedTextSize = 800_000
