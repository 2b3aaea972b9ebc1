package main_test

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/wasmagent/wasmagent/internal/wasmbuild"
)

// Every plugin, tools, config and version example, and those of run and
// mcp that need no model (the demo's configuration, --print-config) — in every command's
// --help and in the documents' code blocks — runs as printed, from a copy
// of the repository's root after make plugins, and exits 0: its flags,
// its paths, its JSON, the tool it names and the grants it gives are
// right. (Checked by hand until now; the documents' lines were checked
// only for their flags and paths.) An example that reaches the network
// (--host), needs a file the reader makes (wordcount.wasm) or holds a
// placeholder is left out; at least ten must run (twelve with Node.js).
// Each is a process that starts a runtime and a plugin: about 7 s of CPU
// in all, spent in make test because these are the lines a new user
// types first; WASMAGENT_EXAMPLES=0 leaves it out (docs/testing.md).
func TestExamplesRunAsPrinted(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the plugins")
	}
	if os.Getenv("WASMAGENT_EXAMPLES") == "0" {
		t.Skip("WASMAGENT_EXAMPLES=0: every example of --help and the documents, run as a process, left out")
	}
	t.Parallel() // its CPU is its children's
	root, err := wasmbuild.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	// The view: what make plugins leaves at the root, and the files the
	// examples name.
	view := t.TempDir()
	copyFile := func(rel string) {
		b, err := os.ReadFile(filepath.Join(root, rel))
		if err != nil {
			t.Fatal(err)
		}
		os.MkdirAll(filepath.Dir(filepath.Join(view, rel)), 0o755)
		os.WriteFile(filepath.Join(view, rel), b, 0o644)
	}
	for _, rel := range []string{"README.md", "agent.toml", "examples/demo/agent.toml", "examples/demo/script.json"} {
		copyFile(rel)
	}
	filepath.WalkDir(filepath.Join(root, "examples/demo/workspace"), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(root, p)
			copyFile(rel)
		}
		return nil
	})
	plugins, _ := filepath.Glob(filepath.Join(root, "plugins", "*", "main.go"))
	for _, m := range plugins {
		name := filepath.Base(filepath.Dir(m))
		b, err := os.ReadFile(wasmbuild.ForTest(t, "plugins/"+name))
		if err != nil {
			t.Fatal(err)
		}
		os.MkdirAll(filepath.Join(view, "plugins", name), 0o755)
		os.WriteFile(filepath.Join(view, "plugins", name, name+".wasm"), b, 0o644)
	}
	if wasmbuild.HaveNode() {
		if p, err := wasmbuild.ASCached("plugins/text"); err == nil {
			b, _ := os.ReadFile(p)
			os.MkdirAll(filepath.Join(view, "plugins", "text"), 0o755)
			os.WriteFile(filepath.Join(view, "plugins", "text", "text.wasm"), b, 0o644)
		}
	}

	// The examples: --help's, then the documents'.
	var lines []string
	for _, cmd := range [][]string{{"plugin", "call"}, {"plugin", "inspect"}, {"config", "validate"}, {"tools"}, {"version"}, {"run"}, {"mcp"}} {
		help, _, _ := run(t, append(cmd, "--help")...)
		_, ex, _ := strings.Cut(help, "\nExamples:\n")
		ex, _, _ = strings.Cut(ex, "\n\n")
		lines = append(lines, strings.Split(ex, "\n")...)
	}
	var docs []string
	for _, pattern := range []string{"README.md", "docs/*.md", "plugins/*/README.md", "examples/*/README.md"} {
		m, _ := filepath.Glob(filepath.Join(root, pattern))
		docs = append(docs, m...)
	}
	block := regexp.MustCompile("(?s)```[a-z]*\n(.*?)```")
	continued := regexp.MustCompile(`[ \t]*\\\n\s*`) // a line that goes on
	for _, f := range docs {
		b, _ := os.ReadFile(f)
		for _, m := range block.FindAllStringSubmatch(string(b), -1) {
			lines = append(lines, strings.Split(continued.ReplaceAllString(m[1], " "), "\n")...)
		}
	}
	command := regexp.MustCompile(`^(?:\$ )?(?:(echo '[^']*') \| )?wasmagent ((?:plugin (?:call|inspect)|config validate|tools|version|--version|run --config examples/demo/agent\.toml|mcp .*--print-config)(?: .*)?)$`)
	placeholder := regexp.MustCompile(`^[A-Z][A-Z_]*(\.wasm|_JSON)?$`)
	ran, seen := 0, map[string]bool{}
	for _, line := range lines {
		line = strings.TrimSpace(line)
		if i := strings.Index(line, "  "); i >= 0 { // "   (a comment)", "   # a comment"
			line = strings.TrimSpace(line[:i])
		}
		m := command.FindStringSubmatch(line)
		if m == nil || seen[line] {
			continue
		}
		seen[line] = true
		words, ok := splitShell(m[2])
		for _, w := range words {
			// A placeholder: FILE.wasm, TOOL, [flags], before|after, …
			ok = ok && !placeholder.MatchString(w) && !strings.HasPrefix(w, "[") && !strings.Contains(w, "…") && !(strings.Contains(w, "|") && !strings.ContainsAny(w, "{\"'"))
		}
		if !ok || strings.Contains(line, "--host") {
			t.Logf("left out: %s", line)
			continue
		}
		missing := ""
		for _, w := range words {
			if strings.HasSuffix(w, ".wasm") || strings.HasSuffix(w, ".toml") {
				if _, err := os.Stat(filepath.Join(view, w)); err != nil {
					missing = w
				}
			}
		}
		if missing != "" {
			t.Logf("left out (%s is the reader's, or not built here): %s", missing, line)
			continue
		}
		cmd := exec.Command(binary, words...)
		cmd.Dir = view
		cmd.Env = append(os.Environ(), "WA_E2E_KEY=sk-e2e")
		if m[1] != "" {
			in, _ := splitShell(strings.TrimPrefix(m[1], "echo "))
			cmd.Stdin = strings.NewReader(strings.Join(in, " ") + "\n")
		}
		out, err := cmd.CombinedOutput()
		var exit *exec.ExitError
		if err != nil && !errors.As(err, &exit) {
			t.Fatal(err)
		}
		ran++
		t.Logf("ran: %s", line)
		if err != nil {
			t.Errorf("%s\nexits %d:\n%s", line, exit.ExitCode(), out)
		}
	}
	if ran < 10 {
		t.Fatalf("only %d examples ran", ran)
	}
}

// splitShell splits s as a shell would for plain words and '…' or "…"
// quoted ones (no escapes, no $); ok is false for anything else.
func splitShell(s string) (words []string, ok bool) {
	var w strings.Builder
	in, quote := false, rune(0)
	for _, r := range s {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			w.WriteRune(r)
		case r == '\'' || r == '"':
			quote, in = r, true
		case r == ' ' || r == '\t':
			if in {
				words = append(words, w.String())
				w.Reset()
				in = false
			}
		case r == '$' || r == '\\' || r == '`':
			return nil, false
		default:
			w.WriteRune(r)
			in = true
		}
	}
	if quote != 0 {
		return nil, false
	}
	if in {
		words = append(words, w.String())
	}
	return words, true
}
