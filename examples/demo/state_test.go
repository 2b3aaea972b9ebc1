package demo_test

import (
	"os"
	"testing"
)

// The demo's session goes to a temporary state directory, never the
// user's.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "wasmagent-demo-state-")
	if err != nil {
		panic(err)
	}
	os.Setenv("XDG_STATE_HOME", dir)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}
