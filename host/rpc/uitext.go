package rpc

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Caps on what a question shows the client, in runes.
const (
	maxNameRunes     = 200  // a hook's or tool's name
	maxQuestionRunes = 1000 // a hook's question
	maxArgsRunes     = 2000 // the arguments the call would run with
)

// displayText makes s fit to show in a client's dialog: control
// characters (C0, DEL, C1) go (tab, CR and LF become a space, so words
// stay apart), and so do the bidi controls that can make a dialog show
// text in another order than it is (U+202A–U+202E, U+2066–U+2069,
// U+200E, U+200F, U+061C); invalid UTF-8 becomes U+FFFD. Then, if it is
// longer than n runes, its middle is cut, leaving head and tail around
// "… N bytes …" (the bytes cut), at most n runes in all.
func displayText(s string, n int) string {
	return clipMiddle(stripControls(s), n)
}

func isHidden(r rune) bool {
	switch {
	case r < 0x20, r >= 0x7f && r <= 0x9f:
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069, r == 0x200e, r == 0x200f, r == 0x061c:
		return true
	}
	return false
}

func stripControls(s string) string {
	clean := true
	for _, r := range s {
		if isHidden(r) || r == utf8.RuneError {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s { // an invalid byte comes as utf8.RuneError
		switch {
		case r == '\t' || r == '\n' || r == '\r':
			b.WriteByte(' ')
		case !isHidden(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// clipMiddle cuts the middle of s (valid UTF-8) so that it has at most n
// runes, never splitting one.
func clipMiddle(s string, n int) string {
	total := utf8.RuneCountInString(s)
	if total <= n {
		return s
	}
	const markRunes = 24 // "… N bytes …" with N up to 13 digits
	keep := max(n-markRunes, 0)
	head := byteOffset(s, keep-keep/2)
	tail := byteOffset(s, total-keep/2)
	return s[:head] + fmt.Sprintf("… %d bytes …", tail-head) + s[tail:]
}

// byteOffset is where rune i of s starts (len(s) past the last).
func byteOffset(s string, i int) int {
	for off := range s {
		if i == 0 {
			return off
		}
		i--
	}
	return len(s)
}
