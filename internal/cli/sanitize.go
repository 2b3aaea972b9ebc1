package cli

import "strings"

// printable makes text from a model or a plugin safe to show on a
// terminal: control characters other than newline and tab — escape
// sequences that could move the cursor, rewrite the screen, set the
// title or the clipboard — are shown in caret notation (ESC as ^[), C1
// controls as U+FFFD. CR LF becomes LF.
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
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

func needsCleaning(s string) bool {
	for _, r := range s {
		if (r < 0x20 && r != '\n' && r != '\t') || (r >= 0x7f && r < 0xa0) {
			return true
		}
	}
	return false
}
