package wasmtool

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/wasmagent/wasmagent/runtime"
	"github.com/wasmagent/wasmagent/sdk"
)

// CheckNeeds compares what a plugin declares it needs with what it is
// granted. missing lists required needs no grant meets; unused lists grants
// no need asks for. With no declared needs, nothing is missing and nothing
// can be called unused.
func CheckNeeds(n *sdk.Needs, g runtime.Grants) (missing, unused []string) {
	if n == nil {
		return nil, nil
	}
	why := func(s string) string {
		if s == "" {
			return ""
		}
		return " (" + s + ")"
	}
	usedDir := map[int]bool{}
	for _, need := range n.Paths {
		found := false
		for i, d := range g.Dirs {
			if (need.Guest == sdk.AnyGrant || pathWithin(need.Guest, d.Guest)) && (d.Write || !need.Write) {
				found, usedDir[i] = true, true
			}
		}
		if !found && !need.Optional {
			mode := "read-only"
			if need.Write {
				mode = "read-write"
			}
			what := "directory " + need.Guest
			if need.Guest == sdk.AnyGrant {
				what = "at least one directory"
			}
			missing = append(missing, fmt.Sprintf("%s (%s)%s", what, mode, why(need.Why)))
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
			what := "host " + need.Host
			if need.Host == sdk.AnyGrant {
				what = "at least one host"
			}
			missing = append(missing, what+why(need.Why))
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
			missing = append(missing, fmt.Sprintf("config value %s%s", need.Key, why(need.Why)))
		}
	}
	for k := range g.Config {
		if !usedKey[k] {
			unused = append(unused, "config value "+k)
		}
	}
	slices.Sort(unused)
	return missing, unused
}

// pathWithin reports whether guest path p is dir or inside it.
func pathWithin(p, dir string) bool {
	p, dir = path.Clean(p), path.Clean(dir)
	return p == dir || dir == "/" || strings.HasPrefix(p, dir+"/")
}
