package host

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
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

// FuzzAppendQuoted: appendQuoted writes every string, invalid UTF-8
// included, byte for byte as encoding/json's Encoder without HTML
// escaping does.
func FuzzAppendQuoted(f *testing.F) {
	for _, s := range []string{"", "a", `"\`, "\x00\x01\b\f\n\r\t\x1f\x7f", "<>&", "é😀", "\u2028\u2029", "\xff", "\xed\xa0\x80", "a\xc0", "\ufffd"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(s); err != nil {
			t.Fatal(err)
		}
		if got := appendQuoted([]byte("x"), s); string(got) != "x"+strings.TrimSuffix(want.String(), "\n") {
			t.Fatalf("%q: appendQuoted writes %s, encoding/json %s", s, got[1:], want.Bytes())
		}
	})
}
