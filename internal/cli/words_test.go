package cli

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/wasmagent/wasmagent/internal/wasmbuild"
)

// A count's noun agrees with it, whatever the count: "it has tools
// wordcount" (one tool), "1 lines, 3 words" (the plugin template), "(1
// messages)" were written as "%d NOUNs" or as a plural before a list.
// Every message of the command, of agent.toml's checks and of the plugin
// templates a user copies is read for a count written before a plural
// (in Go "%d tools", in AssemblyScript `n.toString() + " tools"`): such a
// message says plural(n, "tool") instead, or the template's own one.
func TestCountsAgree(t *testing.T) {
	root, err := wasmbuild.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	// A count, then up to two words, one of them a plural noun ("%d tool
	// results", "%d bytes"); not a verb ("%d is negative").
	goCount := regexp.MustCompile(`%d ([a-z]+)(?: ([a-z]+))?`)
	tsCount := regexp.MustCompile(`toString\(\) \+ " ([a-z]+)(?: ([a-z]+))?`)
	verbs := []string{"is", "was", "has", "does", "as", "its", "this", "carries"}
	// Messages whose count is a constant above 1.
	constant := map[string]bool{
		"the token is %s; use at least %d random ones (openssl rand -hex 32)": true, // minTokenBytes
	}
	plural := func(m []string) string {
		for _, w := range m[1:] {
			if len(w) > 2 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && !slices.Contains(verbs, w) {
				return w
			}
		}
		return ""
	}
	checked := 0
	for _, dir := range []string{"internal/cli", "cmd/wasmagent", "host/config", "examples/plugin-template", "examples/plugin-template-as/assembly"} {
		files, _ := filepath.Glob(filepath.Join(root, dir, "*"))
		for _, f := range files {
			rel, _ := filepath.Rel(root, f)
			switch {
			case strings.HasSuffix(f, "_test.go"):
			case strings.HasSuffix(f, ".go"):
				fset := token.NewFileSet()
				file, err := parser.ParseFile(fset, f, nil, parser.SkipObjectResolution)
				if err != nil {
					t.Fatal(err)
				}
				ast.Inspect(file, func(n ast.Node) bool {
					lit, ok := n.(*ast.BasicLit)
					if !ok || lit.Kind != token.STRING {
						return true
					}
					s, err := strconv.Unquote(lit.Value)
					if err != nil {
						return true
					}
					if constant[s] {
						return true
					}
					for _, m := range goCount.FindAllStringSubmatch(s, -1) {
						checked++
						if w := plural(m); w != "" {
							t.Errorf("%s:%d: %q writes %q after a count that may be 1: use plural(n, %q)", rel, fset.Position(lit.Pos()).Line, s, w, strings.TrimSuffix(w, "s"))
						}
					}
					return true
				})
			case strings.HasSuffix(f, ".ts"):
				b, _ := os.ReadFile(f)
				for _, m := range tsCount.FindAllStringSubmatch(string(b), -1) {
					checked++
					if w := plural(m); w != "" {
						t.Errorf("%s: %q after a count that may be 1", rel, m[0])
					}
				}
			}
		}
	}
	if checked < 20 {
		t.Fatalf("only %d counts read", checked)
	}
}

// plural and named agree with every count: the singular for one, the
// plural for any other, and the words in the order given.
func TestPluralAndNamed(t *testing.T) {
	for n := range 2000 {
		one, many := " tool call", " tool calls"
		if n == 1 {
			many = one
		}
		if got := plural(n, "tool call"); got != count(n)+many {
			t.Fatalf("plural(%d) = %q", n, got)
		}
		one, many = " match", " matches"
		if n == 1 {
			many = one
		}
		if got := plural(n, "match|matches"); got != count(n)+many {
			t.Fatalf("plural(%d, match|matches) = %q", n, got)
		}
	}
	names := []string{"read", "write", "edit", "ls"}
	for n := range len(names) + 1 {
		got := named("tool", names[:n])
		switch {
		case n == 0 && got != "no tools",
			n == 1 && got != "tool read",
			n > 1 && got != "tools "+strings.Join(names[:n], ", "):
			t.Fatalf("named(%d names) = %q", n, got)
		}
	}
	for tools := range 3 {
		for hooks := range 3 {
			got := pluginHas(names[:tools], []string{"beforeToolCall", "afterToolCall"}[:hooks])
			if strings.Contains(got, "tools "+names[0]) != (tools > 1) || strings.Contains(got, "hooks ") != (hooks > 1) ||
				strings.Contains(got, "call those") != (hooks > 1) || strings.Contains(got, "call it") != (hooks == 1) {
				t.Errorf("%d tools, %d hooks: %q", tools, hooks, got)
			}
		}
	}
}
