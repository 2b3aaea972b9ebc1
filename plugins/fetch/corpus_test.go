package main

import (
	"bytes"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// The corpus in testdata/pages (see its README.md) is converted and each
// page is held to rules written from the HTML alone, not from the
// converter's output:
//   - every link a reader can follow keeps its target;
//   - no text of a script or style appears;
//   - a data table (two rows or more, two columns or more, no table
//     inside, not role="presentation") comes out as a table, with a
//     header separator row;
//   - every <pre> comes out fenced, its first line intact;
//   - the words a reader sees are kept (at least 97% of them);
//   - the output is valid UTF-8 and carries no HTML comment.
func TestCorpusRules(t *testing.T) {
	pages, _ := filepath.Glob(filepath.Join("testdata", "pages", "*.html"))
	if len(pages) < 10 {
		t.Fatalf("the corpus has %d pages, want at least 10", len(pages))
	}
	for _, p := range pages {
		t.Run(strings.TrimSuffix(filepath.Base(p), ".html"), func(t *testing.T) {
			body, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			for _, problem := range ruleProblems(body, htmlToMarkdown(body)) {
				t.Error(problem)
			}
		})
	}
}

// ruleProblems lists how out, the Markdown of page, breaks the rules.
func ruleProblems(page []byte, out string) []string {
	var problems []string
	doc, err := html.Parse(bytes.NewReader(page))
	if err != nil {
		return []string{err.Error()}
	}
	if !utf8.ValidString(out) {
		problems = append(problems, "the output is not valid UTF-8")
	}
	if strings.Contains(out, "<!--") {
		problems = append(problems, "the output carries an HTML comment")
	}
	// Script and style text, anywhere in the page.
	walkAll(doc, func(n *html.Node) bool {
		if n.Type == html.ElementNode && (n.DataAtom == atom.Script || n.DataAtom == atom.Style) {
			for _, line := range strings.Split(textOf(&html.Node{FirstChild: n.FirstChild}), "\n") {
				if line = strings.TrimSpace(line); len(line) >= 24 && strings.Contains(out, line) {
					problems = append(problems, fmt.Sprintf("script or style text in the output: %.60q", line))
				}
			}
			return false
		}
		return true
	})
	root := find(doc, atom.Main)
	if root == nil {
		root = find(doc, atom.Body)
	}
	targets := map[string]bool{}
	for _, m := range linkTarget.FindAllStringSubmatch(out, -1) {
		targets[unescape(m[1])] = true
	}
	var words []string
	tables, pres := 0, 0
	walkAll(root, func(n *html.Node) bool {
		if n.Type == html.TextNode {
			words = append(words, strings.Fields(n.Data)...)
		}
		if n.Type != html.ElementNode {
			return true
		}
		if skipped[n.DataAtom] || hidden(n) {
			return false
		}
		switch n.DataAtom {
		case atom.A:
			href := attr(n, "href")
			if usefulURL(href) && collapse(textOf(n)) != "" && !targets[unescape(strings.TrimSpace(href))] {
				problems = append(problems, fmt.Sprintf("link lost: %q", href))
			}
		case atom.Table:
			if dataTable(n) {
				tables++
			}
		case atom.Pre:
			first := ""
			for _, l := range strings.Split(preText(n), "\n") {
				if first = strings.TrimSpace(l); first != "" {
					break
				}
			}
			if first != "" {
				pres++
				if !strings.Contains(out, first) {
					problems = append(problems, fmt.Sprintf("preformatted line lost: %q", first))
				}
			}
			// A code block has no links: its words are kept, its links
			// become text.
			words = append(words, strings.Fields(preText(n))...)
			return false
		}
		return true
	})
	if got := strings.Count(out, "|---"); got < tables {
		problems = append(problems, fmt.Sprintf("%d data tables, %d Markdown tables", tables, got))
	}
	if got := strings.Count(out, "```"); got < 2*pres {
		problems = append(problems, fmt.Sprintf("%d preformatted blocks, %d fences", pres, got))
	}
	lost := 0
	plain := strings.ReplaceAll(out, `\`, "")
	seen := map[string]bool{}
	for _, w := range strings.Fields(plain) {
		seen[w] = true
	}
	for _, w := range words {
		w = strings.ReplaceAll(w, `\`, "")
		if !seen[w] && !strings.Contains(plain, w) {
			lost++
		}
	}
	if len(words) > 0 && lost*100 > 3*len(words) {
		problems = append(problems, fmt.Sprintf("%d of %d words lost", lost, len(words)))
	}
	return problems
}

func walkAll(n *html.Node, f func(*html.Node) bool) {
	if !f(n) {
		return
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		walkAll(c, f)
	}
}

// dataTable: two rows or more of two cells or more, nothing in a cell that
// a Markdown table cannot hold (a table, a list, a code block, a heading),
// not marked as layout. Other tables come out as text, a row to a line.
func dataTable(t *html.Node) bool {
	if attr(t, "role") == "presentation" {
		return false
	}
	rows, nested := 0, false
	walkAll(t, func(n *html.Node) bool {
		switch n.DataAtom {
		case atom.Table, atom.Ul, atom.Ol, atom.Dl, atom.Pre, atom.Blockquote, atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
			if n != t {
				nested = true
				return false
			}
		}
		if n.DataAtom == atom.Tr {
			cells := 0
			for c := n.FirstChild; c != nil; c = c.NextSibling {
				if c.DataAtom == atom.Td || c.DataAtom == atom.Th {
					cells++
				}
			}
			if cells >= 2 {
				rows++
			}
		}
		return true
	})
	return rows >= 2 && !nested
}

var linkTarget = regexp.MustCompile(`\]\(<?([^)\s>]*)`)

// unescape makes link targets comparable: percent-escapes decoded,
// spaces dropped.
func unescape(s string) string {
	if u, err := url.QueryUnescape(s); err == nil {
		return strings.ReplaceAll(u, " ", "")
	}
	return strings.ReplaceAll(s, " ", "")
}
