package cli

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/wasmagent/wasmagent/host/wasmtool"
	"github.com/wasmagent/wasmagent/sdk"
)

// typos are the usual slips of a name: a letter dropped, doubled,
// replaced, or two neighbours swapped.
func typos(name string) []string {
	var out []string
	for i := range len(name) {
		out = append(out, name[:i]+name[i+1:], name[:i+1]+name[i:], name[:i]+"x"+name[i+1:])
		if i+1 < len(name) {
			out = append(out, name[:i]+string(name[i+1])+string(name[i])+name[i+2:])
		}
	}
	return out
}

// nearest is every candidate at the smallest distance from s.
func nearest(s string, candidates []string) (names []string, dist int) {
	dist = 1 << 30
	for _, c := range candidates {
		switch d := editDistance(s, c); {
		case d < dist:
			names, dist = []string{c}, d
		case d == dist:
			names = append(names, c)
		}
	}
	return names, dist
}

// A mistyped command, at any level of the table, is answered with the
// command meant when it is the one nearest, and never with one that does
// not exist; the exit is 2 and nothing goes to stdout.
func TestMistypedCommand(t *testing.T) {
	_, groups := commandPaths(rootGroup, nil)
	hint := regexp.MustCompile(`unknown command "[^"]*" \(did you mean "([^"]+)"\?\)`)
	checked := 0
	for _, path := range groups {
		g := rootGroup
		for _, name := range path {
			for _, c := range g.commands {
				if c.name == name {
					g = c.group
				}
			}
		}
		var names []string
		for _, c := range g.commands {
			names = append(names, c.name)
		}
		for _, c := range g.commands {
			for _, typo := range typos(c.name) {
				if typo == "" || typo == "help" || strings.HasPrefix(typo, "-") || slices.Contains(names, typo) {
					continue
				}
				out, errOut, code := runMain(append(append([]string{}, path...), typo)...)
				if code != ExitUsage || out != "" {
					t.Errorf("%q %q: exit %d, stdout %q", path, typo, code, out)
				}
				m := hint.FindStringSubmatch(errOut)
				if m != nil && !slices.Contains(names, m[1]) {
					t.Errorf("%q %q: suggests %q, not a command: %s", path, typo, m[1], errOut)
				}
				if near, d := nearest(typo, names); len(near) == 1 && near[0] == c.name && d == 1 {
					checked++
					if m == nil || m[1] != c.name {
						t.Errorf("%q %q: want a suggestion of %q:\n%s", path, typo, c.name, errOut)
					}
				}
			}
		}
	}
	if checked < 50 {
		t.Fatalf("only %d typos had one nearest command", checked)
	}
}

// A mistyped flag of any command (the flags as its --help lists them) is
// answered with the flag meant, written as flags are written (--name).
func TestMistypedFlag(t *testing.T) {
	leaves, _ := commandPaths(rootGroup, nil)
	flagLine := regexp.MustCompile(`(?m)^  --([a-z0-9-]+)`)
	hint := regexp.MustCompile(`unknown flag --(\S+)(?: \(did you mean --([^?]+)\?\))?`)
	checked := 0
	for _, path := range leaves {
		help, _, _ := runMain(append(append([]string{}, path...), "--help")...)
		var names []string
		for _, m := range flagLine.FindAllStringSubmatch(help, -1) {
			names = append(names, m[1])
		}
		for _, name := range names {
			for _, typo := range typos(name) {
				if len(typo) < 2 || slices.Contains(names, typo) || typo == "h" || typo == "help" {
					continue
				}
				out, errOut, code := runMain(append(append([]string{}, path...), "--"+typo)...)
				if code != ExitUsage || out != "" {
					t.Errorf("%q --%s: exit %d, stdout %q", path, typo, code, out)
				}
				if strings.Contains(errOut, "flag provided but not defined") {
					t.Errorf("%q --%s: the flag package's own words:\n%s", path, typo, errOut)
				}
				m := hint.FindStringSubmatch(errOut)
				if m == nil {
					t.Errorf("%q --%s: no unknown-flag line:\n%s", path, typo, errOut)
					continue
				}
				if m[2] != "" && !slices.Contains(names, m[2]) {
					t.Errorf("%q --%s: suggests --%s, not a flag of this command", path, typo, m[2])
				}
				if near, d := nearest(typo, names); len(near) == 1 && near[0] == name && d == 1 {
					checked++
					if m[2] != name {
						t.Errorf("%q --%s: want a suggestion of --%s:\n%s", path, typo, name, errOut)
					}
				}
			}
		}
	}
	if checked < 200 {
		t.Fatalf("only %d typos had one nearest flag", checked)
	}
}

// A flag given before the command is said to belong after it.
func TestFlagBeforeCommand(t *testing.T) {
	_, errOut, code := runMain("--config", "x.toml", "run", "hi")
	if code != ExitUsage || !strings.Contains(errOut, "unknown flag --config: flags go after the command") {
		t.Fatalf("exit %d:\n%s", code, errOut)
	}
}

// A flag that wants a value and has none says which value.
func TestFlagNeedsValue(t *testing.T) {
	_, errOut, code := runMain("run", "--config")
	if code != ExitUsage || !strings.Contains(errOut, "wasmagent run: --config needs a value (--config FILE)") {
		t.Fatalf("exit %d:\n%s", code, errOut)
	}
}

// Every kind of need a load error names maps to the plugin call flag that
// grants it, the guest path and the write mode kept; a plugin's "why"
// text, whatever it says, grants nothing.
func TestGrantHint(t *testing.T) {
	type needs = sdk.Needs
	for _, c := range []struct {
		n    needs
		want string
	}{
		{needs{Paths: []sdk.PathNeed{{Guest: sdk.AnyGrant, Why: "why"}}}, "--dir HOST:/work (--dir .:/work: this directory)"},
		{needs{Paths: []sdk.PathNeed{{Guest: "/data/in", Write: true}}}, "--dir HOST:/data/in:rw (--dir .:/data/in:rw: this directory)"},
		{needs{Paths: []sdk.PathNeed{{Guest: "/my data", Why: "x; host h; config value k"}}}, "--dir HOST:/my data (--dir .:/my data: this directory)"},
		{needs{Hosts: []sdk.HostNeed{{Host: "api.example.com", Why: "the API"}, {Host: sdk.AnyGrant}}}, "--host NAME (once for each)"},
		{needs{Config: []sdk.ConfigNeed{{Key: "token", Why: "a host's name in it"}}}, "--set KEY=VALUE"},
		{needs{Paths: []sdk.PathNeed{{Guest: "/a"}}, Hosts: []sdk.HostNeed{{Host: "h"}}, Config: []sdk.ConfigNeed{{Key: "k"}}}, "--dir HOST:/a (--dir .:/a: this directory), --host NAME (once for each), --set KEY=VALUE"},
	} {
		err := fmt.Errorf("plugin p: %w", &wasmtool.MissingGrantsError{Missing: &c.n})
		if got := grantHint(err); got != "grant them with "+c.want {
			t.Errorf("%v:\n got %q\nwant %q", err, got, "grant them with "+c.want)
		}
	}
	if got := grantHint(errors.New("x: the plugin needs grants it was not given: host h")); got != "" {
		t.Errorf("a hint from an error's text (a plugin may write any text): %q", got)
	}
}
