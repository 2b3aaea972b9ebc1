package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// realFlags is every flag of a command, as its --help lists them.
func realFlags(path []string) []string {
	help, _, _ := runMain(append(append([]string{}, path...), "--help")...)
	var names []string
	for _, m := range regexp.MustCompile(`(?m)^  --([a-z0-9-]+)`).FindAllStringSubmatch(help, -1) {
		names = append(names, m[1])
	}
	return names
}

// commandsNamed is the leaf commands words name ("plugin call", "sessions"
// for all of its subcommands), or nil when they name none.
func commandsNamed(words []string) [][]string {
	g := rootGroup
	for i, w := range words {
		var next *command
		for j := range g.commands {
			if g.commands[j].name == w {
				next = &g.commands[j]
			}
		}
		if next == nil {
			return nil
		}
		if next.group == nil {
			if i == len(words)-1 {
				return [][]string{words}
			}
			return nil
		}
		g = next.group
	}
	leaves, _ := commandPaths(g, words)
	return leaves
}

var docFlag = regexp.MustCompile(`(?:^|[\s\x60(\[|])--([a-z][a-z0-9-]*)`)

func flagsIn(text string) []string {
	var out []string
	for _, m := range docFlag.FindAllStringSubmatch(text, -1) {
		if m[1] != "help" && m[1] != "version" && !slices.Contains(out, m[1]) {
			out = append(out, m[1])
		}
	}
	return out
}

func readDoc(t *testing.T, name string) string {
	b, err := os.ReadFile(filepath.Join("..", "..", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// docs/cli.md, which the README calls "every flag of every command",
// names every real flag of every command in that command's section, and
// no flag a command does not have.
func TestCLIDocNamesEveryFlag(t *testing.T) {
	doc := readDoc(t, "docs/cli.md")
	documented := map[string][]string{} // command path → flags its sections name
	sections := strings.Split(doc, "\n## ")[1:]
	for _, sec := range sections {
		heading, body, _ := strings.Cut(sec, "\n")
		heading, _, _ = strings.Cut(heading, ":")
		var cmds [][]string
		for _, part := range strings.Split(heading, ", ") {
			cmds = append(cmds, commandsNamed(strings.Fields(part))...)
		}
		if len(cmds) == 0 {
			continue
		}
		var named []string
		for _, l := range strings.Split(body, "\n") {
			if !strings.Contains(l, "is refused here") { // "--config is refused here": a flag it does not have, on purpose
				named = append(named, l)
			}
		}
		for _, f := range flagsIn(strings.Join(named, "\n")) {
			owned := false
			for _, c := range cmds {
				owned = owned || slices.Contains(realFlags(c), f)
			}
			if !owned {
				t.Errorf("docs/cli.md, %q: --%s is no flag of %q", heading, f, cmds)
			}
			for _, c := range cmds {
				k := strings.Join(c, " ")
				documented[k] = append(documented[k], f)
			}
		}
	}
	leaves, _ := commandPaths(rootGroup, nil)
	for _, c := range leaves {
		for _, f := range realFlags(c) {
			if !slices.Contains(documented[strings.Join(c, " ")], f) {
				t.Errorf("docs/cli.md: wasmagent %s --%s is not documented in a section of that command", strings.Join(c, " "), f)
			}
		}
	}
}

// Every command the README's CLI table shows exists, and every flag it
// gives that command is one of its flags.
func TestReadmeCommandTable(t *testing.T) {
	rows := 0
	for _, line := range strings.Split(readDoc(t, "README.md"), "\n") {
		cells := strings.Split(line, " | ")
		if !strings.HasPrefix(line, "| `wasmagent ") && !strings.HasPrefix(line, "| `run`") || len(cells) < 2 {
			continue
		}
		rows++
		var cmds [][]string
		if strings.HasPrefix(line, "| `run`") { // "`run`/`chat` --continue, …"
			cmds = [][]string{{"run"}, {"chat"}}
		} else {
			var words []string
			for _, w := range strings.Fields(strings.Trim(cells[0], "| `"))[1:] {
				if strings.ContainsAny(w, "[|-`'.") || w[0] >= 'A' && w[0] <= 'Z' {
					break
				}
				words = append(words, w)
			}
			if len(words) == 0 {
				continue // wasmagent --version
			}
			if cmds = commandsNamed(words); cmds == nil {
				t.Errorf("README: no command %q: %s", words, line)
				continue
			}
		}
		for _, f := range flagsIn(line) {
			for _, c := range cmds {
				if !slices.Contains(realFlags(c), f) {
					t.Errorf("README: wasmagent %s has no --%s: %s", strings.Join(c, " "), f, line)
				}
			}
		}
	}
	if rows < 10 {
		t.Fatalf("only %d rows of the README's command table read", rows)
	}
}
