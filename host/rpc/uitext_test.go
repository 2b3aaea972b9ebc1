package rpc

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestDisplayText(t *testing.T) {
	long := strings.Repeat("é", 3000) + "END"
	for _, tc := range []struct {
		in   string
		n    int
		want string
	}{
		{"Push to the remote?", 1000, "Push to the remote?"},
		{"ok\x1b[2J\x1b]0;pwned\x07 now", 1000, "ok[2J]0;pwned now"},
		{"line\nnext\tcol\r", 1000, "line next col "},
		{"c1\u009b31m del\x7f nul\x00", 1000, "c131m del nul"},
		{"safe\u202egnp.exe\u202c \u2066iso\u2069 \u200fmark\u061c", 1000, "safegnp.exe iso mark"},
		{"bad \xff\xfe utf8", 1000, "bad \ufffd\ufffd utf8"},
		{"漢字テキスト", 6, "漢字テキスト"},
		{strings.Repeat("a", 100), 30, "aaa… 94 bytes …aaa"},
		{long, 2000, strings.Repeat("é", 988) + "… 2054 bytes …" + strings.Repeat("é", 985) + "END"},
	} {
		if got := displayText(tc.in, tc.n); got != tc.want {
			t.Errorf("displayText(%.40q, %d) = %.80q, want %.80q", tc.in, tc.n, got, tc.want)
		}
	}
}

// Whatever a plugin or model puts in a question, what the client is shown
// is valid UTF-8 within n runes, with no control or bidi character, and
// is the cleaned text itself or its head and tail around the cut.
func FuzzDisplayText(f *testing.F) {
	f.Add("Push to the remote?", 1000)
	f.Add("\x1b[31m\u202eevil\u2069\xff", 5)
	f.Add(strings.Repeat("漢", 50), 30)
	f.Add("", 0)
	f.Fuzz(func(t *testing.T, s string, n int) {
		n = 30 + int(uint(n)%3000) // the caps used are 200, 1000 and 2000
		got := displayText(s, n)
		if !utf8.ValidString(got) || utf8.RuneCountInString(got) > n {
			t.Fatalf("%q (n %d) → %q: invalid or longer than n", s, n, got)
		}
		for _, r := range got {
			if isHidden(r) {
				t.Fatalf("%q → %q keeps %U", s, got, r)
			}
		}
		clean := stripControls(s)
		if got == clean {
			return
		}
		i := strings.Index(got, "… ")
		j := strings.LastIndex(got, " …")
		if i < 0 || j < i || !strings.HasPrefix(clean, got[:i]) || !strings.HasSuffix(clean, got[j+len(" …"):]) {
			t.Fatalf("%q → %q: not the cleaned text's head and tail", s, got)
		}
		if displayText(got, n) != got {
			t.Fatalf("not idempotent: %q", got)
		}
	})
}
