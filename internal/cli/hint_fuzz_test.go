package cli

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/wasmagent/wasmagent/host/wasmtool"
	"github.com/wasmagent/wasmagent/sdk"
)

// Needs carry a plugin's own guest paths and "why" texts, and typos are
// the user's: whatever they hold, the hints neither panic nor name a flag
// that plugin call does not have, nor a grant the plugin did not ask for.
func FuzzHints(f *testing.F) {
	f.Add("/work", "why", false, "", "", "chta")
	f.Add("*", "x; host h; config value k", true, "h", "k", "--jsn")
	f.Add("/", "", false, "*", "", "")
	f.Add("/a b", "--evil", true, "", "k", "ß\xff")
	f.Fuzz(func(t *testing.T, guest, why string, write bool, host, key, typo string) {
		n := &sdk.Needs{Paths: []sdk.PathNeed{{Guest: guest, Write: write, Why: why}}}
		if host != "" {
			n.Hosts = []sdk.HostNeed{{Host: host, Why: why}}
		}
		h := grantHint(fmt.Errorf("plugin p: %w", &wasmtool.MissingGrantsError{Missing: n}))
		for _, w := range strings.Fields(h) {
			if strings.HasPrefix(w, "--") && !strings.HasPrefix(w, "--dir") && w != "--host" && w != "--set" {
				t.Fatalf("a hint with a flag plugin call does not have: %q", h)
			}
		}
		if (host != "") != strings.Contains(h, "--host") || strings.Contains(h, "--set") {
			t.Fatalf("needs %+v: hint %q", n, h)
		}
		_ = key
		got := didYouMean(typo, []string{"run", "chat", "tools", "sessions"}, func(s string) string { return s })
		if got != "" && !utf8.ValidString(got) {
			t.Fatalf("%q: invalid UTF-8 %q", typo, got)
		}
		if editDistance(typo, typo) != 0 {
			t.Fatalf("%q: not at distance 0 from itself", typo)
		}
	})
}
