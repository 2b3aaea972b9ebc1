package cli

import (
	"strings"
	"testing"
	"unicode"
)

// Whatever a line is, unknownSlash takes only one word written as a
// command that is none of chat's (those run, and everything else is a
// prompt), and what it says of it names it.
func FuzzUnknownSlash(f *testing.F) {
	for _, s := range []string{"/clear", "/quit", "/etc/hosts", "/etc/hosts: what?", "/", "//", "/q-1_x", "/é", "hello", "/Model", "/help me"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		note, ok := unknownSlash(line)
		if !ok {
			if note != "" {
				t.Fatalf("%q: a note without a claim: %q", line, note)
			}
			return
		}
		if _, _, known := findSlash(line); known {
			t.Fatalf("%q: a command of chat's called unknown", line)
		}
		if !strings.HasPrefix(line, "/") || len(line) < 2 || strings.ContainsFunc(line, unicode.IsSpace) || strings.Contains(line[1:], "/") {
			t.Fatalf("%q: not one word written as a command, yet taken for one", line)
		}
		if !strings.Contains(note, line+" is not a command") {
			t.Fatalf("%q: the note does not name it: %q", line, note)
		}
	})
}
