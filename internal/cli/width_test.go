package cli

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"
)

// fit keeps any text within the columns given, cutting only what does not
// fit, and the prompt of chat's line editor never has more runes than the
// row has columns (the editor would cut it inside its escape codes).
func TestFitGenerated(t *testing.T) {
	alphabet := []rune("ab ·…⠋日本語한글ｆ😀\u0301\u200bé")
	rng := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		var b strings.Builder
		for range rng.IntN(60) {
			b.WriteRune(alphabet[rng.IntN(len(alphabet))])
		}
		s := b.String()
		cols := rng.IntN(50) - 2
		got := fit(s, cols)
		if width(got) > max(cols, 0) {
			t.Fatalf("fit(%q, %d) = %q: %d columns", s, cols, got, width(got))
		}
		if width(s) <= cols && got != s {
			t.Fatalf("fit(%q, %d) = %q: cut what fits", s, cols, got)
		}
		if got != s && got != "" && !strings.HasPrefix(s, strings.TrimSuffix(got, "…")) {
			t.Fatalf("fit(%q, %d) = %q: not a start of it", s, cols, got)
		}
		c := &consoleScreen{width: max(cols, 1), busy: true, status: s, noStyle: rng.IntN(2) == 0}
		for _, asking := range []bool{false, true} {
			c.asking = asking
			p := c.prompt()
			if n := utf8.RuneCountInString(p); n > c.width {
				t.Fatalf("width %d: prompt %q has %d runes", c.width, p, n)
			}
			if visualLen(p) >= c.width && c.width > 2 {
				t.Fatalf("width %d: prompt %q leaves no column for the cursor", c.width, p)
			}
			if c.noStyle && strings.Contains(p, "\033") {
				t.Fatalf("NO_COLOR: prompt %q is styled", p)
			}
		}
	}
}
