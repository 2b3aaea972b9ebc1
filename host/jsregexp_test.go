package host

import (
	"strings"
	"testing"
)

// TestJSRegexp checks patterns as JavaScript's RegExp with the u flag
// reads them (pi-ai's validator compiles them so), each answer being
// node's: "." stops at \r and U+2028, \s takes JavaScript's white space,
// \u escapes name characters. With RE2's own reading, each of these
// answered otherwise (or did not compile).
func TestJSRegexp(t *testing.T) {
	for _, c := range []struct {
		pattern, s string
		match      bool
	}{
		{`^.+$`, "a\rb", false},
		{`^.+$`, "a\u2028b", false},
		{`^.+$`, "aé😀", true},
		{`^\s*$`, "\u00a0\u2028\ufeff\v", true},
		{`^\S+$`, "a\u00a0b", false},
		{`^[\s]+$`, "\u3000", true},
		{`^\u00e9$`, "é", true},
		{`^\ud83d\ude00$`, "😀", true},
		{`^\u{1F600}$`, "😀", true},
		{`^[^]$`, "\n", true},
		{`^a[]`, "a", false},
		{`\cJ`, "\n", true},
		{`^\d+$`, "١٢", false},
		{`^\w+$`, "é", false},
		{`^[a-z]+\/\d$`, "ab/1", true},
	} {
		re, err := jsRegexp(c.pattern)
		if err != nil {
			t.Errorf("%q: %v", c.pattern, err)
			continue
		}
		if got := re.MatchString(c.s); got != c.match {
			t.Errorf("%q on %q: %v, want %v", c.pattern, c.s, got, c.match)
		}
	}
	for _, p := range []string{`(?=a)`, `(a)\1`, `\k<x>`, `[\S]`, `a\`} {
		if _, err := jsRegexp(p); err == nil {
			t.Errorf("%q compiled: it has no RE2 form", p)
		}
	}
}

// FuzzTranslateJSRegexp: any pattern a plugin's schema holds translates
// or fails without a panic, and one without an escape, a dot or a class
// is left as it is.
func FuzzTranslateJSRegexp(f *testing.F) {
	for _, p := range []string{`^.+$`, `\s\S\u00e9\u{1F600}\ud83d\ude00`, `[^]`, `[]`, `\cJ\0`, `(?=a)`, `[\s-]`, `\u{110000}`, `\ud83d`, "a\\"} {
		f.Add(p)
	}
	f.Fuzz(func(t *testing.T, p string) {
		out, err := translateJSRegexp(p)
		if err != nil {
			return
		}
		if !strings.ContainsAny(p, `\.[`) && out != p {
			t.Fatalf("%q became %q", p, out)
		}
		jsRegexp(p) // compiles or fails, never panics
	})
}
