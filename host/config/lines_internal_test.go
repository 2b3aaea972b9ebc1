package config

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
)

// Every key the TOML parser finds in a text it accepts is in the line
// index (with its array indices removed), at a line that exists: the
// scanner and the parser agree on what the keys are.
func FuzzIndexLines(f *testing.F) {
	files, _ := filepath.Glob("testdata/broken/*.toml")
	files = append(files, "../../agent.toml", "../../examples/demo/agent.toml")
	for _, name := range files {
		b, _ := os.ReadFile(name)
		f.Add(string(b))
	}
	f.Add("a = [\n 1, # ]\n [2, 3],\n]\nb = { c = \"]\", d.e = '''x\ny''' }\n[[t]]\n[t.u]\nv = \"\"\"\n[[t]]\n\"\"\"\n[[t]]\nw = 1\n")
	f.Fuzz(func(t *testing.T, text string) {
		idx := indexLines(text) // never panics, on any text
		var tree map[string]any
		md, err := toml.Decode(text, &tree)
		if err != nil || strings.Contains(text, `\`) {
			return // only what the parser accepts; escaped keys are not ours to index
		}
		have := map[string]bool{}
		lines := strings.Count(text, "\n") + 1
		for k, n := range idx {
			have[stripIndices(k)] = true
			if n < 1 || n > lines {
				t.Fatalf("%s at line %d of %d", k, n, lines)
			}
		}
		for _, k := range md.Keys() {
			if name := strings.Join(k, "."); !have[name] {
				t.Fatalf("the parser has key %q, the index does not (index: %v)", name, idx)
			}
		}
	})
}

var arrayIndex = regexp.MustCompile(`\[\d+\]`)

func stripIndices(key string) string { return arrayIndex.ReplaceAllString(key, "") }
