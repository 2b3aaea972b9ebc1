package cli_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/wasmagent/wasmagent/internal/wasmbuild"
)

// userDocs are the files a user reads: the README, docs/, the sample
// configuration, and the READMEs of the examples and plugins.
func userDocs(t *testing.T) (root string, files []string) {
	root, err := wasmbuild.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	for _, pattern := range []string{"*.md", "agent.toml", "docs/*.md", "examples/*/README.md", "examples/*/agent.toml", "plugins/*/README.md", "sdk/*/README.md"} {
		m, _ := filepath.Glob(filepath.Join(root, pattern))
		files = append(files, m...)
	}
	if len(files) < 20 {
		t.Fatalf("only %d documents found", len(files))
	}
	return root, files
}

// headings are the section titles of a Markdown file, and their anchors
// as GitHub makes them.
func headings(t *testing.T, path string) (titles, anchors map[string]bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	titles, anchors = map[string]bool{}, map[string]bool{}
	inCode := false
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "```") {
			inCode = !inCode
		}
		if inCode || !strings.HasPrefix(l, "#") {
			continue
		}
		title := strings.TrimSpace(strings.TrimLeft(l, "#"))
		titles[title] = true
		slug := strings.Map(func(r rune) rune {
			switch {
			case r == ' ' || r == '-':
				return '-'
			case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '_', r > 127:
				return r
			case r >= 'A' && r <= 'Z':
				return r + 'a' - 'A'
			}
			return -1
		}, title)
		anchors[slug] = true
	}
	return titles, anchors
}

// Every link of the user's documents leads to a file of the repository,
// and to a section of it that exists; none leads outside (the documents
// say everything in the repository's own words).
func TestDocLinks(t *testing.T) {
	root, files := userDocs(t)
	link := regexp.MustCompile(`\]\(([^)\s]+)\)`)
	checked := 0
	for _, f := range files {
		if !strings.HasSuffix(f, ".md") {
			continue
		}
		b, _ := os.ReadFile(f)
		rel, _ := filepath.Rel(root, f)
		for _, m := range link.FindAllStringSubmatch(string(b), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				t.Errorf("%s: a link outside the repository: %s", rel, target)
				continue
			}
			file, anchor, _ := strings.Cut(target, "#")
			path := f
			if file != "" {
				path = filepath.Join(filepath.Dir(f), file)
			}
			checked++
			if _, err := os.Stat(path); err != nil {
				t.Errorf("%s: link to %s: no such file", rel, target)
				continue
			}
			if anchor != "" && strings.HasSuffix(path, ".md") {
				if _, anchors := headings(t, path); !anchors[anchor] {
					t.Errorf("%s: link to %s: no such section", rel, target)
				}
			}
		}
	}
	if checked < 50 {
		t.Fatalf("only %d links checked", checked)
	}
}

// A reference in prose, `docs/runtime.md, "Images"` or `see README, "The
// scripted model"`, names a file and a section that exist.
func TestDocSectionReferences(t *testing.T) {
	root, files := userDocs(t)
	ref := regexp.MustCompile(`\b((?:docs/|plugins/[a-z]+/|examples/[a-z-]+/|\.\./)?(?:[A-Za-z-]+\.md|README)),\s+"([^"]+)"`)
	checked := 0
	for _, f := range files {
		b, _ := os.ReadFile(f)
		rel, _ := filepath.Rel(root, f)
		text := strings.Join(strings.Fields(strings.ReplaceAll(string(b), "\n# ", " ")), " ")
		for _, m := range ref.FindAllStringSubmatch(text, -1) {
			name, section := m[1], m[2]
			if name == "README" {
				name = "README.md"
			}
			path := filepath.Join(root, name)
			if _, err := os.Stat(path); err != nil {
				path = filepath.Join(filepath.Dir(f), name)
			}
			if _, err := os.Stat(path); err != nil {
				t.Errorf("%s: %s, %q: no such file", rel, m[1], section)
				continue
			}
			checked++
			titles, _ := headings(t, path)
			found := false
			for title := range titles {
				if title == section || strings.HasPrefix(title, section+" ") || strings.HasPrefix(title, section+":") || strings.HasPrefix(title, section+" (") {
					found = true
				}
			}
			if !found {
				t.Errorf("%s: %s, %q: %s has no such section", rel, m[1], section, name)
			}
		}
	}
	if checked < 5 {
		t.Fatalf("only %d section references checked", checked)
	}
}

// The module is on no Go module proxy: no document tells a user to fetch
// it from one (go install …@version, go get), which could only fail.
func TestDocsFetchNothingFromAProxy(t *testing.T) {
	root, files := userDocs(t)
	more, _ := filepath.Glob(filepath.Join(root, "sdk", "assemblyscript", "harness", "*.js"))
	fetch := regexp.MustCompile(`go (install|get) github\.com/wasmagent/wasmagent\S*`)
	for _, f := range append(files, more...) {
		b, _ := os.ReadFile(f)
		if m := fetch.Find(b); m != nil {
			rel, _ := filepath.Rel(root, f)
			t.Errorf("%s: %q cannot work: the module is on no proxy", rel, m)
		}
	}
}

// A size the documentation gives a file in lines ("`examples/demo/agent.toml`,
// is 33 lines") is the file's.
func TestDocLineCounts(t *testing.T) {
	root, files := userDocs(t)
	claim := regexp.MustCompile("`([A-Za-z0-9_./-]+)`,? is (\\d+) lines")
	checked := 0
	for _, f := range files {
		b, _ := os.ReadFile(f)
		text := strings.Join(strings.Fields(string(b)), " ")
		for _, m := range claim.FindAllStringSubmatch(text, -1) {
			data, err := os.ReadFile(filepath.Join(root, m[1]))
			if err != nil {
				t.Errorf("%s: %s: %v", f, m[1], err)
				continue
			}
			checked++
			if n := strconv.Itoa(strings.Count(string(data), "\n")); n != m[2] {
				t.Errorf("%s says %s is %s lines; it is %s", f, m[1], m[2], n)
			}
		}
	}
	if checked == 0 {
		t.Fatal("no line count checked (README's demo configuration has one)")
	}
}

// Every plugin build line a user may copy — in the documents, the
// examples', plugins' and SDK's sources and the hints this command prints —
// builds with -trimpath, as make plugins does: the same source gives the
// same bytes on every machine, so a sha256 pin written on one holds on
// another.
func TestPluginBuildLinesTrimPaths(t *testing.T) {
	root, files := userDocs(t)
	for _, dir := range []string{"examples", "plugins", "sdk", "internal/cli"} {
		filepath.WalkDir(filepath.Join(root, dir), func(p string, d os.DirEntry, err error) error {
			if err == nil && d.IsDir() && d.Name() == "node_modules" {
				return filepath.SkipDir
			}
			if err == nil && !d.IsDir() && strings.HasSuffix(p, ".go") && !strings.HasSuffix(p, "_test.go") {
				files = append(files, p)
			}
			return nil
		})
	}
	build := regexp.MustCompile(`GOOS=wasip1 GOARCH=wasm go build[^\n"` + "`" + `)]*`)
	checked := 0
	for _, f := range files {
		b, _ := os.ReadFile(f)
		for _, m := range build.FindAllString(string(b), -1) {
			checked++
			if !strings.Contains(m, "-trimpath") {
				rel, _ := filepath.Rel(root, f)
				t.Errorf("%s: %q builds without -trimpath", rel, m)
			}
		}
	}
	if checked < 5 {
		t.Fatalf("only %d build lines found", checked)
	}
}
