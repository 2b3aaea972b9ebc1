package cli

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

func runMain(args ...string) (stdout, stderr string, code int) {
	var o, e bytes.Buffer
	code = Main(context.Background(), args, Env{Stdin: strings.NewReader(""), Stdout: &o, Stderr: &e, StdinTerminal: true})
	return o.String(), e.String(), code
}

// every command path of the table: ["run"], ["plugin", "call"], …
func commandPaths(g *group, prefix []string) (leaves, groups [][]string) {
	groups = append(groups, prefix)
	for _, c := range g.commands {
		p := append(append([]string{}, prefix...), c.name)
		if c.group != nil {
			l, gs := commandPaths(c.group, p)
			leaves, groups = append(leaves, l...), append(groups, gs...)
			continue
		}
		leaves = append(leaves, p)
	}
	return leaves, groups
}

// --help, -h and "help PATH" exit 0 everywhere with the usage on stdout,
// and a "Flags:" heading is always followed by flags.
func TestHelpEverywhere(t *testing.T) {
	leaves, groups := commandPaths(rootGroup, nil)
	if len(leaves) < 7 {
		t.Fatalf("only %d commands found", len(leaves))
	}
	for _, path := range append(leaves, groups...) {
		for _, args := range [][]string{
			append(append([]string{}, path...), "--help"),
			append(append([]string{}, path...), "-h"),
			append([]string{"help"}, path...),
		} {
			out, errOut, code := runMain(args...)
			name := strings.Join(args, " ")
			if code != ExitOK || errOut != "" {
				t.Errorf("%s: exit %d, stderr %q", name, code, errOut)
				continue
			}
			if !strings.HasPrefix(out, "usage: wasmagent ") && !strings.Contains(out, "Usage:\n  wasmagent") {
				t.Errorf("%s: no usage:\n%s", name, out)
			}
			lines := strings.Split(out, "\n")
			for i, l := range lines {
				if l == "Flags:" && (i+1 == len(lines) || !strings.HasPrefix(lines[i+1], "  --")) {
					t.Errorf("%s: an empty Flags: section:\n%s", name, out)
				}
			}
		}
	}
}

// A group without its subcommand (but sessions, which lists), or an
// unknown name, is a usage error on stderr; a group's says which commands
// it has.
func TestUsageErrors(t *testing.T) {
	_, groups := commandPaths(rootGroup, nil)
	for _, path := range groups[1:] {
		g := rootGroup
		for _, name := range path {
			for _, c := range g.commands {
				if c.name == name {
					g = c.group
				}
			}
		}
		if g.bare != "" {
			continue
		}
		_, errOut, code := runMain(path...)
		if code != ExitUsage || !strings.HasPrefix(errOut, g.path+": which command? ") {
			t.Errorf("%q: exit %d, stderr %q: does not ask which command", path, code, errOut)
		}
		for _, c := range g.commands {
			if !strings.Contains(strings.SplitN(errOut, "\n", 2)[0], c.name) {
				t.Errorf("%q: the first line does not name %s: %q", path, c.name, errOut)
			}
		}
	}
	for _, args := range [][]string{{}, {"plugin"}, {"config"}, {"nope"}, {"plugin", "nope"}, {"run", "--nope", "x"}, {"version", "extra"}, {"sessions", "show"}, {"sessions", "rm"}, {"sessions", "ls", "extra"}} {
		out, errOut, code := runMain(args...)
		if code != ExitUsage || out != "" || !strings.Contains(errOut, "wasmagent") {
			t.Errorf("%q: exit %d, stdout %q, stderr %q", args, code, out, errOut)
		}
	}
}

func TestVersion(t *testing.T) {
	for _, args := range [][]string{{"--version"}, {"-version"}, {"-v"}, {"-V"}, {"version"}} {
		out, errOut, code := runMain(args...)
		if code != ExitOK || errOut != "" || !strings.HasPrefix(out, "wasmagent ") || !strings.Contains(out, "(plugin ABI 1, go") {
			t.Errorf("%q: exit %d, stdout %q, stderr %q", args, code, out, errOut)
		}
	}
}
