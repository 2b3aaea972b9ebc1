package cli

import (
	"strings"
	"unicode"
)

// A line redrawn in place (run's live line, chat's prompt) must fit in one
// row of the terminal: the redraw clears the row the cursor is on, so the
// rows of a line that wrapped stay on the screen, one more at every tick.

// cells is how many columns of a terminal r takes: 0 for combining marks
// and zero-width characters, 2 for East Asian wide and fullwidth ones and
// emoji, else 1. (Close to wcwidth; a terminal that disagrees about a rare
// rune is off by a column, which the margin left by fit absorbs.)
func cells(r rune) int {
	switch {
	case r == 0x200b || r == 0x200c || r == 0x200d || r == 0xfeff:
		return 0
	case unicode.In(r, unicode.Mn, unicode.Me):
		return 0
	case r >= 0x1100 && r <= 0x115f, // Hangul Jamo
		r >= 0x2e80 && r <= 0x303e, // CJK radicals, punctuation
		r >= 0x3041 && r <= 0x33ff, // kana, CJK symbols
		r >= 0x3400 && r <= 0x4dbf, // CJK extension A
		r >= 0x4e00 && r <= 0x9fff, // CJK unified
		r >= 0xa000 && r <= 0xa4cf, // Yi
		r >= 0xac00 && r <= 0xd7a3, // Hangul syllables
		r >= 0xf900 && r <= 0xfaff, // CJK compatibility
		r >= 0xfe30 && r <= 0xfe4f, // CJK compatibility forms
		r >= 0xff00 && r <= 0xff60, // fullwidth forms
		r >= 0xffe0 && r <= 0xffe6,
		r >= 0x1f300 && r <= 0x1f64f, // emoji
		r >= 0x1f900 && r <= 0x1f9ff,
		r >= 0x20000 && r <= 0x3fffd: // CJK extensions B and later
		return 2
	}
	return 1
}

// width is the columns s takes (s holds no escape sequence).
func width(s string) int { return measure(s, cells) }

// span is what a rune counts in a prompt of chat's line editor: its
// columns, and at least 1, since the editor counts runes.
func span(r rune) int { return max(cells(r), 1) }

func measure(s string, of func(rune) int) int {
	n := 0
	for _, r := range s {
		n += of(r)
	}
	return n
}

// fit is s cut to at most cols columns, ending in "…" when cut ("" when
// cols < 1).
func fit(s string, cols int) string { return fitBy(s, cols, cells) }

// fitBy is fit with each rune counted as of says.
func fitBy(s string, cols int, of func(rune) int) string {
	if measure(s, of) <= cols {
		return s
	}
	if cols < 1 {
		return ""
	}
	var b strings.Builder
	used := 0
	for _, r := range s {
		c := of(r)
		if used+c > cols-1 {
			break
		}
		b.WriteRune(r)
		used += c
	}
	return b.String() + "…"
}
