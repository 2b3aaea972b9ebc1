package demo_test

import "os"

// The demo's session goes to a temporary state directory, never the
// user's.
func init() {
	dir, err := os.MkdirTemp("", "wasmagent-demo-state-")
	if err != nil {
		panic(err)
	}
	os.Setenv("XDG_STATE_HOME", dir)
}
