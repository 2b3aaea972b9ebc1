package safetext

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestClean(t *testing.T) {
	for in, want := range map[string]string{
		"plain text, ünïcödé 日本":       "plain text, ünïcödé 日本",
		"a\nb\r\nc\td":                 "a b  c d",
		"\x1b[2J\x1b]0;title\x07ok":    "[2J]0;titleok",
		"del\x7f c1\u0085\u009b end":   "del c1 end",
		"file\u202egpj.exe":            "filegpj.exe",
		"\u202a\u202b\u202c\u202d x":   " x",
		"\u2066\u2067\u2068\u2069y":    "y",
		"\u200e\u200f\u061cz":          "z",
		"bad \xff\xfe utf8":            "bad \ufffd\ufffd utf8",
		"":                             "",
		"zero\x00width\u200bjoiner ok": "zerowidth\u200bjoiner ok",
	} {
		if got := Clean(in); got != want {
			t.Errorf("Clean(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestClip(t *testing.T) {
	long := strings.Repeat("a", 1000) + strings.Repeat("日", 1000) + strings.Repeat("z", 1000)
	got := Clip(long, 2000)
	if n := utf8.RuneCountInString(got); n > 2000 || n < 1960 {
		t.Errorf("%d runes, want about 2000", n)
	}
	if !strings.HasPrefix(got, strings.Repeat("a", 900)) || !strings.HasSuffix(got, strings.Repeat("z", 900)) {
		t.Errorf("head or tail lost: %.40q … %.40q", got, got[len(got)-40:])
	}
	// The head keeps 984 a's, the tail 984 z's: 16 a's, 1000 日 and 16
	// z's are left out.
	if want := " … 3032 bytes … "; !strings.Contains(got, want) {
		t.Errorf("no %q in %q", want, got)
	}
	if Clip("short", 2000) != "short" || Clip("日本語", 3) != "日本語" || Clip("日本語", 2) != "日本" || Clip("x", 0) != "" {
		t.Error("short strings")
	}
}

// Whatever the input, Clean leaves no control and no bidi control and
// is valid UTF-8; Clip keeps a valid string within max runes, whole
// when it fits, with its first and last runes when it does not.
func FuzzCleanClip(f *testing.F) {
	f.Add("hello\n\x1b[31mred\u202e", 40)
	f.Add(strings.Repeat("日", 100), 64)
	f.Add("\xff\xfe", 1)
	f.Fuzz(func(t *testing.T, s string, max int) {
		max %= 5000
		c := Clean(s)
		if !utf8.ValidString(c) {
			t.Fatalf("Clean(%q) = %q: not UTF-8", s, c)
		}
		for _, r := range c {
			if dropped(r) || r == '\n' || r == '\r' || r == '\t' {
				t.Fatalf("Clean(%q) kept %U", s, r)
			}
		}
		if Clean(c) != c {
			t.Fatalf("Clean is not idempotent on %q", s)
		}
		k := Clip(c, max)
		n := utf8.RuneCountInString(c)
		switch {
		case !utf8.ValidString(k):
			t.Fatalf("Clip split a rune: %q", k)
		case max <= 0 && k != "":
			t.Fatalf("Clip(_, %d) = %q", max, k)
		case max > 0 && n <= max && k != c:
			t.Fatalf("Clip changed a string that fits")
		case max > 0 && utf8.RuneCountInString(k) > max:
			t.Fatalf("Clip(_, %d) has %d runes", max, utf8.RuneCountInString(k))
		case max >= 64 && n > max && (!strings.HasPrefix(c, k[:1]) || !strings.HasSuffix(c, k[len(k)-1:])):
			t.Fatalf("Clip lost the head or the tail")
		}
	})
}
