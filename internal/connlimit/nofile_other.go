//go:build !unix

package connlimit

// openFileLimit is unknown here.
func openFileLimit() uint64 { return 0 }
