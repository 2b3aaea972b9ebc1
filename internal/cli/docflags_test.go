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

// repoPath is a path of the repository a command line may name.
var repoPath = regexp.MustCompile(`^(plugins|examples)/[A-Za-z0-9_./-]+\.(wasm|toml|json|md)$`)

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
				// (plugin call answers extism call's flags on purpose.)
				owned = owned || slices.Contains(realFlags(c), f) || strings.Join(c, " ") == "plugin call" && extismFlags[f] != ""
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

// Every wasmagent command line the documents show, in code blocks and in
// inline code, names a command that exists and only flags it has.
func TestDocCommandLines(t *testing.T) {
	var files []string
	for _, pattern := range []string{"README.md", "SECURITY.md", "docs/*.md", "examples/*/README.md", "plugins/*/README.md", "sdk/*/README.md"} {
		m, _ := filepath.Glob(filepath.Join("..", "..", pattern))
		files = append(files, m...)
	}
	code := regexp.MustCompile("(?s)```[a-z]*\n(.*?)```|`([^`\n]+)`")
	checked := 0
	for _, f := range files {
		b, _ := os.ReadFile(f)
		for _, m := range code.FindAllStringSubmatch(string(b), -1) {
			for _, line := range strings.Split(m[1]+m[2], "\n") {
				rest, ok := commandLine(line)
				if !ok {
					continue
				}
				if checkCommandLine(t, f, strings.Fields(rest)) {
					checked++
					// A path of the repository it names exists (or
					// make plugins builds it).
					for _, w := range strings.Fields(rest) {
						w = strings.Trim(w, "'\"`")
						if repoPath.MatchString(w) && !repoPathExists(filepath.Join("..", ".."), w) {
							t.Errorf("%s: `wasmagent %s`: %s does not exist", f, strings.TrimSpace(rest), w)
						}
					}
				}
			}
		}
	}
	if checked < 40 {
		t.Fatalf("only %d command lines checked", checked)
	}
}

// commandLine is what follows wasmagent on a line that runs it:
// "wasmagent …", "$ wasmagent …", "… | wasmagent …", "go run
// ./cmd/wasmagent …".
func commandLine(line string) (string, bool) {
	for _, sep := range []string{"/cmd/wasmagent ", "wasmagent "} {
		before, rest, ok := strings.Cut(line, sep)
		if !ok {
			continue
		}
		before = strings.TrimSpace(before)
		if sep == "wasmagent " && before != "" && before != "$" && !strings.HasSuffix(before, "|") {
			continue
		}
		return rest, true
	}
	return "", false
}

// checkCommandLine checks the words after "wasmagent" on one line; false
// when they are not a command line (prose in code, a path).
func checkCommandLine(t *testing.T, file string, words []string) bool {
	if len(words) == 0 || words[0] == "--version" || words[0] == "-v" || words[0] == "--help" || words[0] == "help" {
		return len(words) > 0
	}
	if !regexp.MustCompile(`^[a-z]+$`).MatchString(words[0]) {
		return false
	}
	var path []string
	g := rootGroup
	for _, w := range words {
		var c *command
		for i := range g.commands {
			if g.commands[i].name == w {
				c = &g.commands[i]
			}
		}
		if c == nil {
			break
		}
		path = append(path, w)
		if c.group == nil {
			g = nil
			break
		}
		g = c.group
	}
	line := strings.Join(words, " ")
	if len(path) == 0 {
		if slices.Contains([]string{"COMMAND"}, words[0]) {
			return false
		}
		t.Errorf("%s: `wasmagent %s`: no command %q", file, line, words[0])
		return true
	}
	cmds := [][]string{path}
	if g != nil { // a group: "sessions ls|show"
		cmds, _ = commandPaths(g, path)
	}
	var flags []string
	for _, c := range cmds {
		flags = append(flags, realFlags(c)...)
	}
	depth := 0
	for _, w := range words[len(path):] {
		depth += strings.Count(w, "[") - strings.Count(w, "]")
		if depth <= 0 && (w == "|" || w == "#" || w == "&&" || w == ";" || strings.HasPrefix(w, ">") || strings.HasPrefix(w, "<")) {
			break
		}
		if w == "--" {
			break
		}
		w = strings.Trim(w, "[]`'\"(),")
		name, _, _ := strings.Cut(strings.TrimPrefix(w, "--"), "=")
		if strings.HasPrefix(w, "--") && name != "" && name != "help" && !slices.Contains(flags, name) {
			t.Errorf("%s: `wasmagent %s`: --%s is no flag of wasmagent %s", file, line, name, strings.Join(path, " "))
		}
	}
	return true
}
