//go:build !unix

package runtime

// Without these flags, os.Root still keeps every path inside the grant.
const (
	oNoFollow  = 0
	oDirectory = 0
)
