//go:build !race

package eventwire_test

// bigArgumentSize is the argument of TestBigArgument (see race_on_test.go).
const bigArgumentSize = 8_000_000
