package wasmtool

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/wasmagent/wasmagent/internal/safetext"
	"github.com/wasmagent/wasmagent/runtime"
	"github.com/wasmagent/wasmagent/sdk"
)

// CheckNeeds compares what a plugin declares it needs with what it is
// granted. missing lists required needs no grant meets; unused lists grants
// no need asks for. With no declared needs, nothing is missing and nothing
// can be called unused.
func CheckNeeds(n *sdk.Needs, g runtime.Grants) (missing, unused []string) {
	unmet, unused := checkNeeds(n, g)
	return needTexts(unmet), unused
}

// MissingGrantsError is a plugin whose description asks for what it was
// not granted: Missing holds those needs, as the plugin declared them.
type MissingGrantsError struct {
	Missing *sdk.Needs
}

func (e *MissingGrantsError) Error() string {
	texts := needTexts(e.Missing)
	if len(texts) > maxNeedsShown {
		texts = append(texts[:maxNeedsShown], fmt.Sprintf("and %d more", len(texts)-maxNeedsShown))
	}
	return "the plugin needs grants it was not given: " + strings.Join(texts, "; ")
}

// maxNeedsShown is how many missing needs an error lists, and
// maxNeedRunes how long each of a need's texts (its path, host or key,
// its why) is shown: the plugin wrote them, and an error goes to a
// terminal and to logs.
const (
	maxNeedsShown = 16
	maxNeedRunes  = 200
)

// shownNeed is a need's text as an error shows it: printable, one line,
// clipped.
func shownNeed(s string) string { return safetext.Clip(safetext.Clean(s), maxNeedRunes) }

// checkNeeds is CheckNeeds with the required needs no grant meets as
// they were declared (nil when there are none).
func checkNeeds(n *sdk.Needs, g runtime.Grants) (unmet *sdk.Needs, unused []string) {
	if n == nil {
		return nil, nil
	}
	var u sdk.Needs
	usedDir := map[int]bool{}
	for _, need := range n.Paths {
		found := false
		for i, d := range g.Dirs {
			if (need.Guest == sdk.AnyGrant || pathWithin(need.Guest, d.Guest)) && (d.Write || !need.Write) {
				found, usedDir[i] = true, true
			}
		}
		if !found && !need.Optional {
			u.Paths = append(u.Paths, need)
		}
	}
	for i, d := range g.Dirs {
		if !usedDir[i] {
			unused = append(unused, fmt.Sprintf("directory %s → %s", d.Host, d.Guest))
		}
	}
	usedHost := map[string]bool{}
	for _, need := range n.Hosts {
		found := false
		for _, h := range g.Hosts {
			if need.Host == sdk.AnyGrant || runtime.HostGranted([]string{h}, need.Host) {
				found, usedHost[h] = true, true
			}
		}
		if !found && !need.Optional {
			u.Hosts = append(u.Hosts, need)
		}
	}
	for _, h := range g.Hosts {
		if !usedHost[h] {
			unused = append(unused, "host "+h)
		}
	}
	usedKey := map[string]bool{}
	for _, need := range n.Config {
		usedKey[need.Key] = true
		if _, ok := g.Config[need.Key]; !ok && !need.Optional {
			u.Config = append(u.Config, need)
		}
	}
	for k := range g.Config {
		if !usedKey[k] {
			unused = append(unused, "config value "+k)
		}
	}
	slices.Sort(unused)
	if len(u.Paths)+len(u.Hosts)+len(u.Config) == 0 {
		return nil, unused
	}
	return &u, unused
}

// needTexts says each of n's needs in words, the plugin's why in
// parentheses.
func needTexts(n *sdk.Needs) []string {
	if n == nil {
		return nil
	}
	why := func(s string) string {
		if s == "" {
			return ""
		}
		return " (" + shownNeed(s) + ")"
	}
	var texts []string
	for _, need := range n.Paths {
		mode := "read-only"
		if need.Write {
			mode = "read-write"
		}
		what := "directory " + shownNeed(need.Guest)
		if need.Guest == sdk.AnyGrant {
			what = "at least one directory"
		}
		texts = append(texts, fmt.Sprintf("%s (%s)%s", what, mode, why(need.Why)))
	}
	for _, need := range n.Hosts {
		what := "host " + shownNeed(need.Host)
		if need.Host == sdk.AnyGrant {
			what = "at least one host"
		}
		texts = append(texts, what+why(need.Why))
	}
	for _, need := range n.Config {
		texts = append(texts, fmt.Sprintf("config value %s%s", shownNeed(need.Key), why(need.Why)))
	}
	return texts
}

// pathWithin reports whether guest path p is dir or inside it.
func pathWithin(p, dir string) bool {
	p, dir = path.Clean(p), path.Clean(dir)
	return p == dir || dir == "/" || strings.HasPrefix(p, dir+"/")
}
