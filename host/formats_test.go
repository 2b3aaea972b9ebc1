package host

import (
	"testing"
	"unicode/utf8"
)

// TestPunycodeDecode decodes node's punycode.encode of each text.
func TestPunycodeDecode(t *testing.T) {
	for _, c := range [][2]string{
		{"nxasmq6b", "βόλοσ"}, {"r8jz45g", "例え"}, {"bcher-kva", "bücher"},
		{"egbpdaj6bu4bxfgehfvwxn", "ليهمابتكلموشعربي؟"}, {"a-b--3ra", "a-b-ü"}, {"x-iv3s", "😀x"},
	} {
		if got, ok := punycodeDecode(c[0]); !ok || got != c[1] {
			t.Errorf("punycodeDecode(%q) = %q, %v; want %q", c[0], got, ok, c[1])
		}
	}
	for _, bad := range []string{"a!", "zzzzzzzzzzzzzzzzzzzz", "é-a"} {
		if got, ok := punycodeDecode(bad); ok {
			t.Errorf("punycodeDecode(%q) = %q, want a failure", bad, got)
		}
	}
}

// FuzzPunycodeDecode: any label a hostname holds decodes or fails
// without a panic, to valid UTF-8 when it decodes.
func FuzzPunycodeDecode(f *testing.F) {
	for _, s := range []string{"nxasmq6b", "bcher-kva", "a-b--3ra", "x-iv3s", "99999999999", "-", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if out, ok := punycodeDecode(s); ok && !utf8.ValidString(out) {
			t.Fatalf("punycodeDecode(%q) = %q: not UTF-8", s, out)
		}
	})
}
