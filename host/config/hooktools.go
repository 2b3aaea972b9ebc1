package config

import (
	"fmt"
	"path"
	"strings"
)

// unmatched reports each pattern of a hook's tools (key: "hook[0]") that
// matches none of the configured tools: a misspelt name would otherwise
// leave the calls it meant unguarded, silently.
func (s *Setup) unmatched(key string, patterns []string) (errs []error) {
	names := make([]string, len(s.Tools))
	for i, t := range s.Tools {
		names[i] = t.Name
	}
	for j, g := range patterns {
		found := false
		for _, n := range names {
			if ok, _ := path.Match(g, n); ok {
				found = true
				break
			}
		}
		if found {
			continue
		}
		what := "there are no tools"
		if len(names) > 0 {
			what = "the tools are " + strings.Join(names, ", ")
		}
		hint := ""
		if near := nearestName(g, names); near != "" {
			hint = fmt.Sprintf(" (did you mean %q?)", near)
		}
		errs = append(errs, s.File.errorf(fmt.Sprintf("%s.tools[%d]", key, j), "%q matches none of the tools: the hook guards no call by it%s; %s", g, hint, what))
	}
	return errs
}

// nearestName is the name closest to s by edit distance, if one is close
// (at most 2 edits, and fewer than s has letters), or "".
func nearestName(s string, names []string) string {
	best, dist := "", 3
	for _, n := range names {
		if d := editDistance(s, n); d < dist && d < len(s) {
			best, dist = n, d
		}
	}
	return best
}
