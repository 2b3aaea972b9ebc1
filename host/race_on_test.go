//go:build race

package host_test

// piGeneratedScenarios is TestMatchesPiGenerated's default count under the
// race detector: 30 generated scenarios after the fixed ones (fewer than
// the 40 of before, so that the fixed ones added since cost nothing). What the
// test compares is the events, which the race detector does not see; it
// only makes each scenario cost four times as much (12 s of CPU for 200
// of them, against 4 s without it). make test runs the 200 again without
// -race, and the loop's concurrency has tests of its own under it
// (hammer_test.go).
const piGeneratedScenarios = 30

// piValidationCases is TestValidationMatchesPi's default count under the
// race detector.
const piValidationCases = 100
