//go:build !race

package host_test

// piGeneratedScenarios is TestMatchesPiGenerated's default count (see
// race_on_test.go).
const piGeneratedScenarios = 200

// piValidationCases is TestValidationMatchesPi's default count.
const piValidationCases = 400
