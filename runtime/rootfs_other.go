//go:build !unix

package runtime

// errNoDevice: see rootfs_unix.go.
var errNoDevice error = nil

// Without these flags, os.Root still keeps every path inside the grant.
const (
	oNoFollow  = 0
	oDirectory = 0
	oNonBlock  = 0
)
