package cli

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// Load errors carry a plugin's own "why" texts, and typos are the user's:
// whatever they hold, the hints neither panic nor name a flag that
// plugin call does not have.
func FuzzHints(f *testing.F) {
	f.Add("plugin p: the plugin needs grants it was not given: at least one directory (read-only) (why)", "chta")
	f.Add("x: the plugin needs grants it was not given: directory /a (read-write); host h; config value k", "--jsn")
	f.Add("x: needs grants it was not given: directory /", "")
	f.Add("x: needs grants it was not given: directory /; host", "ß\xff")
	f.Fuzz(func(t *testing.T, msg, typo string) {
		if h := grantHint(msg); h != "" {
			for _, w := range strings.Fields(h) {
				if strings.HasPrefix(w, "--") && !strings.HasPrefix(w, "--dir") && w != "--host" && w != "--set" {
					t.Fatalf("a hint with a flag plugin call does not have: %q", h)
				}
			}
		}
		got := didYouMean(typo, []string{"run", "chat", "tools", "sessions"}, func(s string) string { return s })
		if got != "" && !utf8.ValidString(got) {
			t.Fatalf("%q: invalid UTF-8 %q", typo, got)
		}
		if editDistance(typo, typo) != 0 {
			t.Fatalf("%q: not at distance 0 from itself", typo)
		}
	})
}
