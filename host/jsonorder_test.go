package host

import (
	"encoding/json"
	"reflect"
	"testing"
)

// FuzzEncodeOrdered: what decodeOrdered accepts, encodeOrdered writes back
// as the same value with every object's keys in the same order.
func FuzzEncodeOrdered(f *testing.F) {
	for _, s := range []string{`{"b":1,"a":[{"z":null,"y":"\u0041"}],"c":{"e":true,"d":1.50}}`, `[]`, `"x"`, `{"":{}}`, `[{"b":1,"a":2},3]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		v, order, err := decodeOrdered(raw)
		if err != nil {
			return
		}
		out, err := encodeOrdered(v, order)
		if err != nil {
			t.Fatalf("%s: %v", raw, err)
		}
		back, order2, err := decodeOrdered(out)
		if err != nil {
			t.Fatalf("%s encodes to %s, which does not decode: %v", raw, out, err)
		}
		if !reflect.DeepEqual(v, back) || !reflect.DeepEqual(order, order2) {
			t.Fatalf("%s became %s", raw, out)
		}
		if !json.Valid(out) {
			t.Fatalf("invalid %s", out)
		}
	})
}
