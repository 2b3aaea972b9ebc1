package cli

import (
	"maps"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// A slash command of pi or Claude Code typed in chat (/clear, /model,
// /export, …) is answered with what chat has instead, not with "not a
// command" and a guess by spelling; every chat command the answer names is
// one of chat's, and every wasmagent command line it gives exists with
// the flags it shows.
func TestOtherAgentsSlashCommands(t *testing.T) {
	slash := regexp.MustCompile(`(?:^|[ (])/([a-z]+)`)
	line := regexp.MustCompile(`wasmagent ([a-z][a-z -]*[A-Z]*)`)
	for _, name := range slices.Sorted(maps.Keys(otherSlash)) {
		say := otherSlash[name]
		got, ok := unknownSlash("/" + name)
		if !ok || !strings.Contains(got, say) {
			t.Errorf("/%s: %q, %v", name, got, ok)
		}
		if _, _, known := findSlash("/" + name); known {
			t.Errorf("/%s is a command of chat's: otherSlash must not shadow it", name)
		}
		for _, m := range slash.FindAllStringSubmatch(say, -1) {
			if _, _, known := findSlash("/" + m[1]); !known {
				t.Errorf("/%s: the answer names /%s, which chat does not have: %q", name, m[1], say)
			}
		}
		for _, m := range line.FindAllStringSubmatch(say, -1) {
			checkCommandLine(t, "otherSlash[/"+name+"]", strings.Fields(m[1]))
		}
	}
}
