package main_test

import "os"

// The sessions of every child process go to a temporary state directory,
// never the user's.
func init() {
	dir, err := os.MkdirTemp("", "wasmagent-state-")
	if err != nil {
		panic(err)
	}
	os.Setenv("XDG_STATE_HOME", dir)
}
