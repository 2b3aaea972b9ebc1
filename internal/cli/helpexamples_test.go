package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/wasmagent/wasmagent/internal/wasmbuild"
)

// Every example of every command's --help works as printed, from the
// repository's root after make plugins: its flags are the command's, its
// JSON arguments parse, the files and directories it names exist (a
// plugins/NAME/NAME.wasm where make plugins builds one), --dir's host
// directories among them, and a plugin call's TOOL is one its plugin's
// source declares. "--dir /tmp/out:/out:rw" (no such directory),
// "policy.wasm" and "plugin.wasm fetch" (no such files) were printed as
// examples and failed as typed.
func TestHelpExamples(t *testing.T) {
	root, err := wasmbuild.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	exists := func(p string) bool { return repoPathExists(root, p) }
	leaves, _ := commandPaths(rootGroup, nil)
	checked := 0
	for _, path := range leaves {
		help, _, _ := runMain(append(append([]string{}, path...), "--help")...)
		_, examples, ok := strings.Cut(help, "\nExamples:\n")
		if !ok {
			continue
		}
		for _, line := range strings.Split(examples, "\n") {
			rest, ok := commandLine(strings.TrimSpace(line))
			if !ok {
				continue
			}
			if i := strings.Index(rest, "  "); i >= 0 { // "   (a comment)"
				rest = rest[:i]
			}
			rest, _, _ = strings.Cut(rest, " < ")
			words, ok := shellWords(rest)
			if !ok || !checkCommandLine(t, "wasmagent "+strings.Join(path, " ")+" --help", words) {
				t.Errorf("%s --help: cannot read the example %q", strings.Join(path, " "), line)
				continue
			}
			checked++
			var positional []string
			for i := 0; i < len(words); i++ {
				w := words[i]
				switch {
				case w == "--dir" && i+1 < len(words):
					i++
					host, _, _ := strings.Cut(words[i], ":")
					if !exists(host) {
						t.Errorf("%q: --dir %s: no directory %s", line, words[i], host)
					}
				case strings.HasPrefix(w, "--"):
					if fl := lookupFlag(path, strings.TrimPrefix(w, "--")); fl && i+1 < len(words) {
						i++ // its value
					}
				case strings.HasPrefix(w, "{"):
					if !json.Valid([]byte(w)) {
						t.Errorf("%q: %s is not JSON", line, w)
					}
				case strings.HasSuffix(w, ".wasm") || strings.HasSuffix(w, ".toml"):
					if !exists(w) {
						t.Errorf("%q: %s does not exist (from the repository's root, after make plugins)", line, w)
					}
					positional = append(positional, w)
				default:
					positional = append(positional, w)
				}
			}
			// plugin call FILE.wasm TOOL: the plugin's source declares TOOL.
			if strings.Join(path, " ") == "plugin call" && !strings.Contains(line, "--hook") && len(positional) >= 4 {
				file, tool := positional[2], positional[3]
				src, _ := filepath.Glob(filepath.Join(root, filepath.Dir(file), "*.go"))
				found := false
				for _, f := range src {
					b, _ := os.ReadFile(f)
					found = found || strings.Contains(string(b), `"`+tool+`"`)
				}
				if !found {
					t.Errorf("%q: %s declares no tool %q", line, file, tool)
				}
			}
		}
	}
	if checked < 15 {
		t.Fatalf("only %d examples checked", checked)
	}
}

// lookupFlag says whether name is a flag of the command at path that
// takes a value.
func lookupFlag(path []string, name string) bool {
	help, _, _ := runMain(append(append([]string{}, path...), "--help")...)
	return regexp.MustCompile(`(?m)^  --` + regexp.QuoteMeta(name) + `(, -[a-z])? [A-Za-z|_=\[\]:.-]+$`).MatchString(help)
}

// repoPathExists says whether p (relative to the repository's root
// unless absolute) exists, or is a plugin make plugins builds:
// plugins/NAME/NAME.wasm beside its sources.
func repoPathExists(root, p string) bool {
	rel := p
	if !filepath.IsAbs(p) {
		p = filepath.Join(root, p)
	}
	if _, err := os.Stat(p); err == nil {
		return true
	}
	if m := regexp.MustCompile(`^plugins/([a-z]+)/([a-z]+)\.wasm$`).FindStringSubmatch(rel); m != nil && m[1] == m[2] {
		for _, src := range []string{"main.go", "package.json"} {
			if _, err := os.Stat(filepath.Join(root, "plugins", m[1], src)); err == nil {
				return true
			}
		}
	}
	return false
}
