package jsonquote

import (
	"bytes"
	"encoding/json"
	"testing"
)

// FuzzAppend: Append writes every string, invalid UTF-8 included, byte
// for byte as encoding/json's Encoder does, with HTML escaping and
// without.
func FuzzAppend(f *testing.F) {
	for _, s := range []string{"", "a", `"\`, "\x00\x01\b\f\n\r\t\x1f\x7f", "<a href='x'>&amp;</a>", "é😀", "\u2028\u2029", "\xff", "\xed\xa0\x80", "a\xc0", "\ufffd", "\xf4\x90\x80\x80"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, html := range []bool{false, true} {
			var want bytes.Buffer
			enc := json.NewEncoder(&want)
			enc.SetEscapeHTML(html)
			if err := enc.Encode(s); err != nil {
				t.Fatal(err)
			}
			want.Truncate(want.Len() - 1) // Encode's newline
			if got := Append([]byte("x"), s, html); !bytes.Equal(got[1:], want.Bytes()) || got[0] != 'x' {
				t.Fatalf("%q (html %v): Append writes %s, encoding/json %s", s, html, got[1:], want.Bytes())
			}
		}
	})
}
