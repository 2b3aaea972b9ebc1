package session

import (
	"reflect"

	"github.com/wasmagent/wasmagent/host"
)

// sameModel reports whether a and b are the same model where Go can tell:
// == on two interfaces panics when their dynamic values cannot be
// compared (a host.ModelFunc, or a struct holding a func or a map), and
// an embedder may give any host.Model. Models Go cannot compare are never
// the same here: a session then knows the model it runs but not which
// entry of its list that is.
func sameModel(a, b host.Model) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	va, vb := reflect.ValueOf(a), reflect.ValueOf(b)
	if va.Type() != vb.Type() || !va.Comparable() || !vb.Comparable() {
		return false
	}
	return va.Equal(vb)
}
