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
// wordcount" (one tool), "1 lines, 3 words" (the plugin template and the
// text plugin), "[stopped at 1 matching lines]" (fs), "(1 messages)",
// "1 chars" were written as "%d NOUNs", as a number made a string then
// followed by a plural ("%s chars" of a formatted count, n.toString() +
// " lines"), or as a plural before a list. Every message of the command,
// of agent.toml's checks, of the model client, of the first-party
// plugins and of the plugin templates a user copies is read for a count
// written before a plural in any of those ways: such a message says
// words.Count(n, "tool") instead (or the template's own count).
func TestCountsAgree(t *testing.T) {
	root, err := wasmbuild.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	// A count, then up to two words, one of them a plural noun ("%d tool
	// results", "%d bytes"); not a verb ("%d is negative").
	goCount := regexp.MustCompile(`%d ([a-z]+)(?: ([a-z]+))?`)
	goFormatted := regexp.MustCompile(`%s ([a-z]+)(?: ([a-z]+))?`)
	goVerb := regexp.MustCompile(`%[-+# 0-9.*]*[a-zA-Z%]`)
	startsPlural := regexp.MustCompile(`^ ([a-z]+)(?: ([a-z]+))?`)
	tsCount := regexp.MustCompile(`(?:toString\(\)|number\([^()]*\)) \+ " ([a-z]+)(?: ([a-z]+))?`)
	verbs := []string{"is", "was", "has", "does", "as", "its", "this", "carries"}
	// Messages whose count is a constant above 1.
	constant := map[string]bool{
		"the token is %s; use at least %d random ones (openssl rand -hex 32)": true, // minTokenBytes
		"its braces make more than %d alternatives":                           true, // maxAlternatives (sdk/pathglob imports nothing of the module's)
	}
	plural := func(m []string) string {
		for _, w := range m[1:] {
			if len(w) > 2 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && !slices.Contains(verbs, w) {
				return w
			}
		}
		return ""
	}
	// numeral says whether e makes a count into a string: Number,
	// strconv's Itoa and FormatInt/FormatUint, fmt.Sprint, a local itoa.
	numeral := func(e ast.Expr) bool {
		call, ok := e.(*ast.CallExpr)
		if !ok {
			return false
		}
		var name string
		switch f := call.Fun.(type) {
		case *ast.Ident:
			name = f.Name
		case *ast.SelectorExpr:
			name = f.Sel.Name
		case *ast.IndexExpr: // words.Number[int]
			if sel, ok := f.X.(*ast.SelectorExpr); ok {
				name = sel.Sel.Name
			}
		}
		return slices.Contains([]string{"Number", "Itoa", "itoa", "FormatInt", "FormatUint", "Sprint", "count"}, name)
	}
	var dirs []string
	for _, pattern := range []string{"internal/cli", "cmd/wasmagent", "host/config", "host/openai", "sdk", "sdk/pathglob",
		"examples/plugin-template", "examples/plugin-template-as/assembly", "plugins/*", "plugins/*/assembly", "sdk/assemblyscript/assembly", "internal/words"} {
		m, _ := filepath.Glob(filepath.Join(root, pattern))
		dirs = append(dirs, m...)
	}
	checked, plugins := 0, 0
	for _, dir := range dirs {
		if strings.Contains(dir, string(filepath.Separator)+"plugins"+string(filepath.Separator)) {
			plugins++
		}
		files, _ := filepath.Glob(filepath.Join(dir, "*"))
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
				flag := func(at token.Pos, s, w string) {
					t.Errorf("%s:%d: %q writes %q after a count that may be 1: use words.Count(n, %q)", rel, fset.Position(at).Line, s, w, singular(w))
				}
				ast.Inspect(file, func(n ast.Node) bool {
					switch n := n.(type) {
					case *ast.BasicLit:
						if n.Kind != token.STRING {
							return true
						}
						s, err := strconv.Unquote(n.Value)
						if err != nil || constant[s] {
							return true
						}
						for _, m := range goCount.FindAllStringSubmatch(s, -1) {
							checked++
							if w := plural(m); w != "" {
								flag(n.Pos(), s, w)
							}
						}
					case *ast.CallExpr:
						// A format whose %s takes a numeral: "%s chars"
						// of words.Number(n).
						for i, a := range n.Args {
							lit, ok := a.(*ast.BasicLit)
							if !ok || lit.Kind != token.STRING {
								continue
							}
							s, err := strconv.Unquote(lit.Value)
							if err != nil || !strings.Contains(s, "%s ") {
								continue
							}
							verbsAt := goVerb.FindAllStringIndex(s, -1)
							arg := i
							for _, at := range verbsAt {
								if s[at[0]:at[1]] == "%%" {
									continue
								}
								arg++
								if s[at[0]:at[1]] != "%s" || arg >= len(n.Args) || !numeral(n.Args[arg]) {
									continue
								}
								checked++
								if m := goFormatted.FindStringSubmatch(s[at[0]:]); m != nil {
									if w := plural(m); w != "" {
										flag(lit.Pos(), s, w)
									}
								}
							}
							break
						}
					case *ast.BinaryExpr:
						// strconv.Itoa(n) + " lines"
						lit, ok := n.Y.(*ast.BasicLit)
						if n.Op != token.ADD || !ok || lit.Kind != token.STRING || !numeral(n.X) {
							return true
						}
						s, err := strconv.Unquote(lit.Value)
						if err != nil {
							return true
						}
						checked++
						if m := startsPlural.FindStringSubmatch(s); m != nil {
							if w := plural(m); w != "" {
								flag(lit.Pos(), s, w)
							}
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
	if checked < 40 || plugins < 6 {
		t.Fatalf("only %d counts read in %d plugins' directories", checked, plugins)
	}
}

// pluginHas says the plugin's tools and hooks in words that agree with
// their number.
func TestPluginHas(t *testing.T) {
	names := []string{"read", "write", "edit", "ls"}
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

// singular is the form words.Count takes for a plural: "line" for
// "lines", "entry|entries" for "entries".
func singular(plural string) string {
	if stem, ok := strings.CutSuffix(plural, "ies"); ok {
		return stem + "y|" + plural
	}
	return strings.TrimSuffix(plural, "s")
}
