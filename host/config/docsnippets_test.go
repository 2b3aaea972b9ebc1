package config_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/wasmagent/wasmagent/host/config"
	"github.com/wasmagent/wasmagent/internal/wasmbuild"
)

// Every agent.toml snippet the documents show loads as written: a
// ```toml block, or a heredoc into agent.toml in a shell block, with
// [model] added when the snippet has none (a snippet is a part of a
// file). A key a snippet misspells, a value of the wrong type, a plugin
// path of the repository that does not exist (or that make plugins does
// not build) fails it; files a reader makes themself (a token file, their
// own plugin) may be absent. A snippet without a table header (the
// inside of one) is left out.
func TestDocSnippetsLoad(t *testing.T) {
	root, err := wasmbuild.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	for _, pattern := range []string{"README.md", "SECURITY.md", "docs/*.md", "examples/*/README.md", "plugins/*/README.md", "sdk/*/README.md"} {
		m, _ := filepath.Glob(filepath.Join(root, pattern))
		files = append(files, m...)
	}
	block := regexp.MustCompile("(?s)```toml\n(.*?)```")
	heredoc := regexp.MustCompile(`(?s)agent\.toml <<'?EOF'?\n(.*?)\nEOF\n`)
	header := regexp.MustCompile(`(?m)^\[`)
	missing := regexp.MustCompile(`"([^"]+)" does not exist`)
	repoDir := regexp.MustCompile(`^(plugins|examples|sdk|docs|internal|host|runtime|cmd)/`)
	checked := 0
	for _, f := range files {
		b, _ := os.ReadFile(f)
		rel, _ := filepath.Rel(root, f)
		var snippets []string
		for _, m := range block.FindAllStringSubmatch(string(b), -1) {
			snippets = append(snippets, m[1])
		}
		for _, m := range heredoc.FindAllStringSubmatch(string(b), -1) {
			snippets = append(snippets, m[1])
		}
		for _, s := range snippets {
			if !header.MatchString(s) {
				continue
			}
			checked++
			text := s
			if !strings.Contains(s, "[model]") {
				text = "[model]\nprovider = \"openai\"\nname = \"m\"\n" + s
			}
			_, err := config.Parse(filepath.Join(root, "agent.toml"), []byte(text))
			for _, e := range unjoin(err) {
				if m := missing.FindStringSubmatch(e.Error()); m != nil && (!repoDir.MatchString(m[1]) || pathBuilt(root, m[1])) {
					continue // the reader's own file, or one make plugins builds
				}
				t.Errorf("%s: a snippet does not load: %v\n%s", rel, e, s)
			}
		}
	}
	if checked < 12 {
		t.Fatalf("only %d snippets checked", checked)
	}
}

// pathBuilt says whether p, relative to the repository's root, is a
// plugin make plugins builds: plugins/NAME/NAME.wasm beside its sources.
func pathBuilt(root, p string) bool {
	m := regexp.MustCompile(`^plugins/([a-z]+)/([a-z]+)\.wasm$`).FindStringSubmatch(p)
	if m == nil || m[1] != m[2] {
		return false
	}
	for _, src := range []string{"main.go", "package.json"} {
		if _, err := os.Stat(filepath.Join(root, "plugins", m[1], src)); err == nil {
			return true
		}
	}
	return false
}
