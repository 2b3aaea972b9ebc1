//go:build !race

package eventwire_test

import "github.com/wasmagent/wasmagent/host/eventwire"

// bigArgumentSize and bigArgumentFloor are TestBigArgument's argument and
// floor (see race_on_test.go).
const (
	bigArgumentSize  = 8_000_000
	bigArgumentFloor = eventwire.DefaultFloor
)
