package main

import (
	"bytes"
	"encoding/json"
	"mime"
	"strconv"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// render turns a body into text by its content type.
func render(contentType string, body []byte, raw bool) string {
	mt, _, _ := mime.ParseMediaType(contentType)
	switch {
	case raw:
	case mt == "text/html" || mt == "application/xhtml+xml" || (mt == "" && looksHTML(body)):
		return htmlToMarkdown(body)
	case mt == "application/json" || strings.HasSuffix(mt, "+json"):
		var out bytes.Buffer
		if json.Indent(&out, body, "", "  ") == nil {
			return out.String()
		}
	case mt != "" && !strings.HasPrefix(mt, "text/") && !strings.HasSuffix(mt, "xml") && !utf8.Valid(body):
		return "(" + mt + ", " + itoa(len(body)) + " bytes of binary data not shown)"
	}
	if !utf8.Valid(body) {
		return strings.ToValidUTF8(string(body), "�")
	}
	return string(body)
}

func looksHTML(b []byte) bool {
	head := strings.ToLower(string(b[:min(len(b), 512)]))
	return strings.Contains(head, "<html") || strings.Contains(head, "<!doctype html")
}

func itoa(n int) string { return strconv.Itoa(n) }

// htmlToMarkdown keeps what a reader sees: headings, paragraphs, links,
// lists, emphasis, code and preformatted blocks, tables as rows; it drops
// scripts, styles, navigation, forms and everything invisible.
func htmlToMarkdown(body []byte) string {
	doc, err := html.Parse(bytes.NewReader(body))
	if err != nil {
		return string(body)
	}
	w := &mdWriter{}
	if t := find(doc, atom.Title); t != nil {
		if title := strings.TrimSpace(textOf(t)); title != "" {
			w.block("# " + title)
		}
	}
	root := find(doc, atom.Main)
	if root == nil {
		root = find(doc, atom.Body)
	}
	if root == nil {
		root = doc
	}
	w.node(root)
	return strings.TrimSpace(w.out.String()) + "\n"
}

type mdWriter struct {
	out    strings.Builder
	line   strings.Builder
	lists  []int // item counters of open lists; -1 for unordered
	inPre  bool
	inLink bool
}

var skipped = map[atom.Atom]bool{
	atom.Script: true, atom.Style: true, atom.Noscript: true, atom.Nav: true, atom.Footer: true,
	atom.Form: true, atom.Button: true, atom.Svg: true, atom.Iframe: true, atom.Template: true, atom.Head: true,
}

func (w *mdWriter) node(n *html.Node) {
	switch n.Type {
	case html.TextNode:
		w.text(n.Data)
		return
	case html.ElementNode:
		if skipped[n.DataAtom] || hidden(n) {
			return
		}
	}
	switch n.DataAtom {
	case atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
		w.flush()
		level := int(n.Data[1] - '0')
		w.block(strings.Repeat("#", level) + " " + collapse(textOf(n)))
		return
	case atom.P, atom.Div, atom.Section, atom.Article, atom.Header, atom.Blockquote, atom.Figure, atom.Table:
		w.flush()
		w.children(n)
		w.flush()
		return
	case atom.Br:
		w.flush()
		return
	case atom.Tr:
		var cells []string
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.DataAtom == atom.Td || c.DataAtom == atom.Th {
				cells = append(cells, collapse(textOf(c)))
			}
		}
		w.flush()
		w.out.WriteString("| " + strings.Join(cells, " | ") + " |\n")
		return
	case atom.Pre:
		w.flush()
		w.block("```\n" + strings.TrimRight(textOf(n), "\n") + "\n```")
		return
	case atom.Ul, atom.Ol:
		w.flush()
		counter := -1
		if n.DataAtom == atom.Ol {
			counter = 0
		}
		w.lists = append(w.lists, counter)
		w.children(n)
		w.lists = w.lists[:len(w.lists)-1]
		w.flush()
		w.out.WriteString("\n")
		return
	case atom.Li:
		w.flush()
		depth := len(w.lists)
		marker := "- "
		if depth > 0 && w.lists[depth-1] >= 0 {
			w.lists[depth-1]++
			marker = itoa(w.lists[depth-1]) + ". "
		}
		w.line.WriteString(strings.Repeat("  ", max(depth-1, 0)) + marker)
		w.children(n)
		w.flushLine()
		return
	case atom.A:
		href := attr(n, "href")
		label := collapse(textOf(n))
		if href == "" || strings.HasPrefix(href, "javascript:") || label == "" || w.inLink {
			w.children(n)
			return
		}
		w.text("[" + label + "](" + href + ")")
		return
	case atom.Strong, atom.B:
		w.wrap(n, "**")
		return
	case atom.Em, atom.I:
		w.wrap(n, "*")
		return
	case atom.Code:
		w.text("`" + textOf(n) + "`")
		return
	case atom.Img:
		if alt := attr(n, "alt"); alt != "" {
			w.text("[image: " + alt + "]")
		}
		return
	}
	w.children(n)
}

func (w *mdWriter) children(n *html.Node) {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		w.node(c)
	}
}

func (w *mdWriter) wrap(n *html.Node, mark string) {
	t := collapse(textOf(n))
	if t != "" {
		w.text(mark + t + mark)
	}
}

func (w *mdWriter) text(s string) {
	s = collapse(s)
	if s == "" {
		return
	}
	if w.line.Len() > 0 && !strings.HasSuffix(w.line.String(), " ") && !strings.HasPrefix(s, ".") && !strings.HasPrefix(s, ",") {
		w.line.WriteString(" ")
	}
	w.line.WriteString(s)
}

// flush ends the current paragraph.
func (w *mdWriter) flush() {
	if strings.TrimSpace(w.line.String()) == "" {
		w.line.Reset()
		return
	}
	w.block(w.line.String())
	w.line.Reset()
}

// flushLine ends a list item (no blank line after it).
func (w *mdWriter) flushLine() {
	if strings.TrimSpace(w.line.String()) != "" {
		w.out.WriteString(w.line.String() + "\n")
	}
	w.line.Reset()
}

func (w *mdWriter) block(s string) {
	w.out.WriteString(s + "\n\n")
}

func collapse(s string) string { return strings.Join(strings.Fields(s), " ") }

func textOf(n *html.Node) string {
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
		}
		if n.Type == html.ElementNode && (skipped[n.DataAtom] || hidden(n)) {
			return
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return b.String()
}

func find(n *html.Node, a atom.Atom) *html.Node {
	if n.Type == html.ElementNode && n.DataAtom == a {
		return n
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if f := find(c, a); f != nil {
			return f
		}
	}
	return nil
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

func hidden(n *html.Node) bool {
	for _, a := range n.Attr {
		if a.Key == "hidden" {
			return true
		}
	}
	return attr(n, "aria-hidden") == "true" || strings.Contains(strings.ReplaceAll(attr(n, "style"), " ", ""), "display:none")
}
