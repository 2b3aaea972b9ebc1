package safetext

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Clean returns s without control characters (C0, DEL, C1) and without
// bidi controls (the embeddings and overrides U+202A–U+202E, the isolates
// U+2066–U+2069, and the marks U+200E, U+200F, U+061C). A line break or
// a tab becomes a space, so that words stay apart and nothing starts a
// line of its own. Invalid UTF-8 becomes U+FFFD: the result is valid
// UTF-8.
func Clean(s string) string {
	if clean(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		switch {
		case r == '\n' || r == '\r' || r == '\t':
			b.WriteByte(' ')
		case !dropped(r):
			b.WriteRune(r) // utf8.RuneError for a bad byte
		}
	}
	return b.String()
}

func clean(s string) bool {
	for _, r := range s {
		if dropped(r) || r == '\n' || r == '\r' || r == '\t' || r == utf8.RuneError {
			return false
		}
	}
	return true
}

func dropped(r rune) bool {
	return r < 0x20 || (r >= 0x7f && r < 0xa0) || IsBidiControl(r)
}

// IsBidiControl reports the bidi controls Clean removes: the embeddings
// and overrides U+202A–U+202E, the isolates U+2066–U+2069, and the marks
// U+200E, U+200F, U+061C. They can make a display show text in another
// order than it is.
func IsBidiControl(r rune) bool {
	return (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069) ||
		r == 0x200e || r == 0x200f || r == 0x061c
}

// Clip returns s if it has at most max runes; else its head and its tail
// around " … N bytes … ", N the bytes left out, max runes in all. It cuts
// between runes, never inside one.
func Clip(s string, max int) string {
	if max <= 0 {
		return ""
	}
	n := utf8.RuneCountInString(s)
	if n <= max {
		return s
	}
	const room = 32 // the marker's most runes: " … " + 20 digits + " bytes … "
	if max < 2*room {
		return prefix(s, max)
	}
	head := (max - room) / 2
	tail := max - room - head
	h := prefix(s, head)
	t := s[len(prefix(s, n-tail)):]
	return fmt.Sprintf("%s … %d bytes … %s", h, len(s)-len(h)-len(t), t)
}

// prefix is the first n runes of s.
func prefix(s string, n int) string {
	for i := range s {
		if n == 0 {
			return s[:i]
		}
		n--
	}
	return s
}
