package cli

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/wasmagent/wasmagent/internal/safetext"
)

// printable makes text from a model or a plugin safe to show on a
// terminal: control characters other than newline and tab — escape
// sequences that could move the cursor, rewrite the screen, set the
// title or the clipboard, a CR that would overwrite the line — are shown
// in caret notation (ESC as ^[, a lone CR as ^M), C1 controls and
// invalid UTF-8 as U+FFFD, bidi controls (safetext.IsBidiControl) as
// <U+202E>, so that the text shows in the order it is in. CR LF becomes
// LF.
func printable(s string) string {
	if !needsCleaning(s) {
		return s
	}
	s = strings.ReplaceAll(s, "\r\n", "\n")
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '\n' || r == '\t':
			b.WriteRune(r)
		case r < 0x20:
			b.WriteByte('^')
			b.WriteRune(r + 64)
		case r == 0x7f:
			b.WriteString("^?")
		case r >= 0x80 && r < 0xa0:
			b.WriteRune('\ufffd')
		case safetext.IsBidiControl(r):
			fmt.Fprintf(&b, "<U+%04X>", r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

func needsCleaning(s string) bool {
	for _, r := range s {
		if (r < 0x20 && r != '\n' && r != '\t') || (r >= 0x7f && r < 0xa0) || safetext.IsBidiControl(r) || r == utf8.RuneError {
			return true
		}
	}
	return false
}

// flatPrintable is printable(s) on one line: newlines and tabs become spaces
// (for the live line, which a newline would break).
func flatPrintable(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '\n' || r == '\t' {
			return ' '
		}
		return r
	}, printable(s))
}

// jsonSafe writes the runes of JSON text s that a terminal could act on
// and that JSON leaves as they are — C0 and C1 controls and DEL (which
// valid JSON only holds in strings), bidi controls — as \u escapes: the
// JSON means the same. Invalid UTF-8 becomes \ufffd.
func jsonSafe(s string) string {
	if !needsCleaning(s) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if r < 0x20 && r != '\n' && r != '\t' && r != '\r' || r >= 0x7f && r < 0xa0 || safetext.IsBidiControl(r) || r == utf8.RuneError {
			fmt.Fprintf(&b, `\u%04x`, r)
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}
