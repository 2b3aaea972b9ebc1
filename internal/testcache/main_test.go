package main

import "testing"

// Every plugin the tests use builds and compiles, and the tests' shared
// compilation cache holds them afterwards. It must run as a test too: wazero
// names its cache directory after its own version, which it reads from the
// binary's build information, and a test binary carries none ("dev"),
// unlike a built command ("v1.12.0"). make test runs this without -race
// before the race-detector run (RATIONALE.md).
func TestCompileEveryTestPlugin(t *testing.T) {
	if testing.Short() {
		t.Skip("builds every plugin")
	}
	if err := run(); err != nil {
		t.Fatal(err)
	}
}
