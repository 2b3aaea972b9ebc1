//go:build !race

package main_test

// bigArgumentLen is the length of TestRunJSONBigArgument's argument (see
// race_on_test.go).
const bigArgumentLen = 8_000_000
