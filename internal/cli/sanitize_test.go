package cli

import (
	"bytes"
	"strings"
	"testing"
)

func TestPrintable(t *testing.T) {
	for in, want := range map[string]string{
		"plain text\n\tindented":    "plain text\n\tindented",
		"\x1b]0;pwned\x07":          "^[]0;pwned^G",
		"\x1b[2J\x1b[Hgone":         "^[[2J^[[Hgone",
		"line\r\nnext\rover":        "line\nnext^Mover",
		"del\x7f c1\u009b31m":       "del^? c1\ufffd31m",
		"ünïcödé ✓ 漢字":              "ünïcödé ✓ 漢字",
		"file\u202egpj.exe \u2066x": "file<U+202E>gpj.exe <U+2066>x",
		"bad \xff utf8":             "bad \ufffd utf8",
	} {
		if got := printable(in); got != want {
			t.Errorf("%q: %q, want %q", in, got, want)
		}
	}
}

func FuzzPrintable(f *testing.F) {
	f.Add("\x1b[31mred\x1b[0m\r\n\x00")
	f.Fuzz(func(t *testing.T, s string) {
		got := printable(s)
		for _, r := range got {
			if (r < 0x20 && r != '\n' && r != '\t') || (r >= 0x7f && r < 0xa0) || isBidi(r) {
				t.Fatalf("%q → %q keeps %U", s, got, r)
			}
		}
		if printable(got) != got {
			t.Fatalf("not idempotent: %q", s)
		}
	})
}

// A model's escape sequences never reach a terminal: not in the answer on
// stdout, not in the status lines.
func TestHostileTextOnTerminal(t *testing.T) {
	var out, status bytes.Buffer
	sc := &stdScreen{out: &out, status: &status, terminal: true, outTerminal: true}
	sc.text("hi \x1b]52;c;ZXZpbA==\x07 there")
	if strings.ContainsRune(out.String(), 0x1b) || out.String() != "hi ^[]52;c;ZXZpbA==^G there" {
		t.Fatalf("%q", out.String())
	}
	piped := &stdScreen{out: &out, status: &status}
	out.Reset()
	piped.text("raw \x1b[1m")
	if out.String() != "raw \x1b[1m" {
		t.Fatalf("a pipe gets the text as it is: %q", out.String())
	}
}
