package main

import (
	"bufio"
	"fmt"
	"io/fs"
	"os"
	"path"
	"regexp"
	"sort"
	"strings"

	"github.com/wasmagent/wasmagent/internal/words"
	"github.com/wasmagent/wasmagent/sdk"
	"github.com/wasmagent/wasmagent/sdk/pathglob"
)

type lsArgs struct {
	Path  string `json:"path,omitempty" description:"directory to list (default: the workspace)"`
	Limit int    `json:"limit,omitempty" description:"most entries to list (default 500)"`
}

func ls(c *sdk.Call, a lsArgs) (*sdk.Result, error) {
	p, err := resolve(c, a.Path)
	if err != nil {
		return nil, err
	}
	entries, err := os.ReadDir(p)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", orDot(a.Path), unwrapPath(c, err))
	}
	limit := a.Limit
	if limit <= 0 {
		limit = 500
	}
	var b strings.Builder
	for i, e := range entries {
		if i == limit {
			fmt.Fprintf(&b, "[%s not shown]\n", words.Count(len(entries)-limit, "more entry|more entries"))
			break
		}
		name := e.Name()
		if e.IsDir() {
			name += "/"
		}
		b.WriteString(name + "\n")
	}
	if len(entries) == 0 {
		b.WriteString("(empty directory)\n")
	}
	return sdk.Text(b.String()).WithDetails(map[string]any{"entries": len(entries)}), nil
}

func orDot(p string) string {
	if p == "" {
		return "."
	}
	return p
}

type findArgs struct {
	Pattern string `json:"pattern" description:"glob on the path relative to the search directory: *, ?, [abc], {a,b}, and ** for any number of directories (\"**/*.{go,md}\")"`
	Path    string `json:"path,omitempty" description:"directory to search (default: the workspace)"`
	Limit   int    `json:"limit,omitempty" description:"most results (default 1000)"`
}

func find(c *sdk.Call, a findArgs) (*sdk.Result, error) {
	re, err := pathglob.Compile(a.Pattern)
	if err != nil {
		return nil, err
	}
	dir, err := resolve(c, a.Path)
	if err != nil {
		return nil, err
	}
	limit := a.Limit
	if limit <= 0 {
		limit = 1000
	}
	var found []string
	more := false
	err = walk(c, dir, func(rel string, d fs.DirEntry) bool {
		if re.MatchString(rel) {
			if len(found) == limit {
				more = true
				return false
			}
			if d.IsDir() {
				rel += "/"
			}
			found = append(found, rel)
		}
		return true
	})
	if err != nil {
		return nil, err
	}
	sort.Strings(found)
	text := strings.Join(found, "\n")
	if len(found) == 0 {
		text = "no files match " + a.Pattern
	}
	if more {
		text += fmt.Sprintf("\n[stopped at %s]", words.Count(limit, "result"))
	}
	return sdk.Text(text).WithDetails(map[string]any{"matches": len(found), "truncated": more}), nil
}

// walk visits every entry under dir (skipping .git and node_modules, and
// not following symbolic links), reporting progress as it starts and then
// at the counts progressStep gives.
func walk(c *sdk.Call, dir string, visit func(rel string, d fs.DirEntry) bool) error {
	c.Update(sdk.Textf("scanning %s", display(c, dir)))
	n, next := 0, progressStep(0)
	stop := fmt.Errorf("stop")
	err := fs.WalkDir(os.DirFS(dir), ".", func(rel string, d fs.DirEntry, err error) error {
		if err != nil {
			if rel == "." {
				return err
			}
			return nil // unreadable entries are skipped
		}
		if rel == "." {
			return nil
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "node_modules") {
			return fs.SkipDir
		}
		if n++; n == next {
			c.Update(sdk.Textf("scanned %s", words.Count(n, "entry|entries")))
			next = progressStep(n)
		}
		if !visit(rel, d) {
			return stop
		}
		return nil
	})
	if err == stop {
		return nil
	}
	if err != nil {
		return fmt.Errorf("%s: %w", dir, unwrapPath(c, err))
	}
	return nil
}

type grepArgs struct {
	Pattern    string `json:"pattern" description:"regular expression (RE2 syntax)"`
	Path       string `json:"path,omitempty" description:"file or directory to search (default: the workspace)"`
	Glob       string `json:"glob,omitempty" description:"only files whose relative path matches this glob (\"**/*.go\")"`
	IgnoreCase bool   `json:"ignoreCase,omitempty"`
	Context    int    `json:"context,omitempty" description:"lines of context before and after each match (at most 10)"`
	Limit      int    `json:"limit,omitempty" description:"most matching lines (default 200)"`
}

const maxGrepFile = 4 << 20

func grep(c *sdk.Call, a grepArgs) (*sdk.Result, error) {
	expr := a.Pattern
	if a.IgnoreCase {
		expr = "(?i)" + expr
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return nil, fmt.Errorf("bad pattern %q: %v", a.Pattern, err)
	}
	var only *regexp.Regexp
	if a.Glob != "" {
		if only, err = pathglob.Compile(a.Glob); err != nil {
			return nil, err
		}
	}
	if a.Context < 0 || a.Context > 10 {
		return nil, fmt.Errorf("context must be between 0 and 10")
	}
	limit := a.Limit
	if limit <= 0 {
		limit = 200
	}
	root, err := resolve(c, a.Path)
	if err != nil {
		return nil, err
	}
	g := &grepper{re: re, context: a.Context, limit: limit}
	fi, err := os.Stat(root)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", orDot(a.Path), unwrapPath(c, err))
	}
	if !fi.IsDir() {
		g.file(root, display(c, root))
	} else {
		err = walk(c, root, func(rel string, d fs.DirEntry) bool {
			if d.IsDir() || (only != nil && !only.MatchString(rel)) {
				return true
			}
			return g.file(path.Join(root, rel), display(c, path.Join(root, rel)))
		})
		if err != nil {
			return nil, err
		}
	}
	text := g.out.String()
	if g.matches == 0 {
		text = "no matches for " + a.Pattern
	}
	if g.full {
		text += fmt.Sprintf("[stopped at %s]\n", words.Count(limit, "matching line"))
	}
	return sdk.Text(text).WithDetails(map[string]any{"matches": g.matches, "files": g.files, "truncated": g.full}), nil
}

type grepper struct {
	re      *regexp.Regexp
	context int
	limit   int
	out     strings.Builder
	matches int
	files   int
	full    bool
}

// file searches one file; false stops the walk.
func (g *grepper) file(p, name string) bool {
	f, err := os.Open(p)
	if err != nil {
		return true
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || fi.Size() > maxGrepFile {
		return true
	}
	var lines []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), maxGrepFile)
	for sc.Scan() {
		lines = append(lines, strings.TrimSuffix(sc.Text(), "\r"))
	}
	if isBinary([]byte(strings.Join(lines[:min(len(lines), 100)], "\n"))) {
		return true
	}
	printed := -1
	found := false
	for i, line := range lines {
		if !g.re.MatchString(line) {
			continue
		}
		if g.matches == g.limit {
			g.full = true
			return false
		}
		g.matches++
		found = true
		from, to := max(i-g.context, printed+1), min(i+g.context, len(lines)-1)
		if g.context > 0 && printed >= 0 && from > printed+1 {
			g.out.WriteString("--\n")
		}
		for j := from; j <= to; j++ {
			sep := "-"
			if j == i || g.re.MatchString(lines[j]) {
				sep = ":"
			}
			fmt.Fprintf(&g.out, "%s%s%d%s %s\n", name, sep, j+1, sep, lines[j])
		}
		printed = to
	}
	if found {
		g.files++
	}
	return true
}

// progressStep is the count of entries at which walk next reports, after
// reporting at n: every 200 entries up to 3,200, then every sixteenth of
// the count so far (in 200s). Every update is kept and passed on to the
// client, and a call that sends more than its grant's max_updates
// (default 10,000) fails: a fixed step of 200 failed a walk of two
// million entries. This way a walk of n entries sends about
// 17 × ln(n / 3200) + 16 updates: 130 for two million, 233 for a billion.
func progressStep(n int) int {
	return n + max(200, n/16/200*200)
}
