package cli

import (
	"maps"
	"slices"
	"strings"
	"testing"
)

// A command typed without its group ("wasmagent validate", "wasmagent
// call", as extism call is typed), or in another tool's word ("wasmagent
// exec" as codex exec, "plugin run", "config check", "sessions list"),
// is answered with the command line meant, which exists and has the
// flags it shows. Every nested command of the table and every such word
// is tried; "unknown command" with only the list of commands was the
// answer.
func TestCommandMeant(t *testing.T) {
	leaves, _ := commandPaths(rootGroup, nil)
	names := map[string]int{}
	for _, p := range leaves {
		names[p[len(p)-1]]++
	}
	tried := 0
	for _, p := range leaves {
		if len(p) < 2 || names[p[len(p)-1]] > 1 {
			continue
		}
		tried++
		_, errOut, code := runMain(p[len(p)-1])
		if want := "did you mean wasmagent " + strings.Join(p, " ") + "?"; code != ExitUsage || !strings.Contains(errOut, want) {
			t.Errorf("wasmagent %s: exit %d, %q; want %q", p[len(p)-1], code, errOut, want)
		}
	}
	_, groups := commandPaths(rootGroup, nil)
	for _, gp := range groups {
		g := rootGroup
		for _, name := range gp {
			for _, c := range g.commands {
				if c.name == name {
					g = c.group
				}
			}
		}
		for _, word := range slices.Sorted(maps.Keys(g.aka)) {
			meant := g.aka[word]
			tried++
			_, errOut, code := runMain(append(append([]string{}, gp...), word)...)
			if want := "did you mean wasmagent " + meant + "?"; code != ExitUsage || !strings.Contains(errOut, want) {
				t.Errorf("%s %s: exit %d, %q; want %q", g.path, word, code, errOut, want)
			}
			if !checkCommandLine(t, g.path+" aka "+word, strings.Fields(meant)) {
				t.Errorf("%s %s: %q is no command line", g.path, word, meant)
			}
		}
	}
	if tried < 20 {
		t.Fatalf("only %d tried", tried)
	}
}
