//go:build !race

package main_test

import "github.com/wasmagent/wasmagent/host/eventwire"

// bigArgumentLen and bigArgumentFloor are TestRunJSONBigArgument's
// argument and [events] floor (see race_on_test.go).
const (
	bigArgumentLen   = 8_000_000
	bigArgumentFloor = eventwire.DefaultFloor
)
