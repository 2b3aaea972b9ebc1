package hosttest

import (
	"os"
	"strconv"
	"testing"
)

// EnvInt is the whole number ≥ 0 in the environment variable name, or
// def when it is unset; anything else fails t, naming the variable (the
// knobs of generated tests: how many cases, from which seed).
func EnvInt(t testing.TB, name string, def int) int {
	t.Helper()
	s := os.Getenv(name)
	if s == "" {
		return def
	}
	v, err := strconv.Atoi(s)
	if err != nil || v < 0 {
		t.Fatalf("%s=%q: want a whole number ≥ 0", name, s)
	}
	return v
}
