package main

import (
	"bytes"
	"encoding/json"
	"mime"
	"strings"
	"unicode/utf8"

	"github.com/JohannesKaufmann/html-to-markdown/v2/converter"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/base"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/commonmark"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/table"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/wasmagent/wasmagent/internal/words"
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
		return "(" + mt + ", " + words.Count(len(body), "byte") + " of binary data not shown)"
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

// htmlToMarkdown keeps what a reader sees, as CommonMark with GitHub
// tables: the title, then <main> (or the body) without scripts, styles,
// navigation, footers, forms and hidden elements. The choice of what to
// show is ours; the rendering is html-to-markdown's (RATIONALE.md, "Why
// html-to-markdown for fetch's pages?").
func htmlToMarkdown(body []byte) string {
	doc, err := html.Parse(bytes.NewReader(body))
	if err != nil {
		return strings.ToValidUTF8(string(body), "�")
	}
	title := ""
	if t := find(doc, atom.Title); t != nil {
		title = collapse(textOf(t))
	}
	root := find(doc, atom.Main)
	if root == nil {
		root = find(doc, atom.Body)
	}
	if root == nil {
		root = doc
	}
	prune(root)
	md, err := markdown.ConvertNode(root)
	out := strings.TrimSpace(dropListEnds(string(md)))
	if err != nil {
		// Only a panic inside the converter or a missing renderer gets
		// here; the page's text is still worth more than nothing.
		out = collapse(textOf(root))
	}
	if title != "" {
		out = "# " + title + "\n\n" + out
	}
	return strings.ToValidUTF8(out, "�") + "\n"
}

// markdown is built once: registering the plugins is most of the cost of
// a small page.
var markdown = converter.NewConverter(converter.WithPlugins(
	base.NewBasePlugin(),
	commonmark.NewCommonmarkPlugin(),
	table.NewTablePlugin(
		table.WithNewlineBehavior(table.NewlineBehaviorPreserve), // a <br> in a cell keeps the table a table
		table.WithHeaderPromotion(true),
		table.WithSkipEmptyRows(true),
		table.WithCellPaddingBehavior(table.CellPaddingBehaviorMinimal), // no padding: fewer tokens
	),
))

// dropListEnds removes the HTML comment the converter writes between two
// adjacent lists (so that CommonMark does not join them), with the blank
// line after it: a reader, or a model, is better served without it.
func dropListEnds(md string) string {
	if !strings.Contains(md, listEnd) {
		return md
	}
	lines := strings.Split(md, "\n")
	kept := lines[:0]
	for i := 0; i < len(lines); i++ {
		if strings.TrimSpace(lines[i]) == listEnd {
			if i+1 < len(lines) && strings.TrimSpace(lines[i+1]) == "" {
				i++
			}
			continue
		}
		kept = append(kept, lines[i])
	}
	return strings.Join(kept, "\n")
}

const listEnd = "<!--THE END-->"

var skipped = map[atom.Atom]bool{
	atom.Script: true, atom.Style: true, atom.Noscript: true, atom.Nav: true, atom.Footer: true,
	atom.Form: true, atom.Button: true, atom.Svg: true, atom.Iframe: true, atom.Template: true, atom.Head: true,
	atom.Select: true, atom.Textarea: true, atom.Object: true, atom.Embed: true, atom.Canvas: true,
}

// prune removes what a reader does not see, and what would only cost the
// model tokens: links to javascript: lose their target, images inlined
// as data: URLs keep only their alt text.
func prune(n *html.Node) {
	for c := n.FirstChild; c != nil; {
		next := c.NextSibling
		switch {
		case c.Type == html.CommentNode:
			n.RemoveChild(c)
		case c.Type != html.ElementNode:
		case skipped[c.DataAtom] || hidden(c):
			n.RemoveChild(c)
		case c.DataAtom == atom.A && !usefulURL(attr(c, "href")):
			prune(c)
			for g := c.FirstChild; g != nil; g = c.FirstChild {
				c.RemoveChild(g)
				n.InsertBefore(g, c)
			}
			n.RemoveChild(c)
		case c.DataAtom == atom.Pre:
			flatten(c)
		case inline[c.DataAtom] && hasBlock(c):
			// An unclosed <i> that the parser carried over paragraphs, a
			// list or a table: emphasis cannot span blocks in Markdown, so
			// keep the blocks and drop the emphasis.
			if first := c.FirstChild; first != nil {
				next = first
			}
			for g := c.FirstChild; g != nil; g = c.FirstChild {
				c.RemoveChild(g)
				n.InsertBefore(g, c)
			}
			n.RemoveChild(c)
		case c.DataAtom == atom.Img && !usefulURL(attr(c, "src")):
			if alt := collapse(attr(c, "alt")); alt != "" {
				n.InsertBefore(&html.Node{Type: html.TextNode, Data: "[image: " + alt + "]"}, c)
			}
			n.RemoveChild(c)
		default:
			prune(c)
		}
		c = next
	}
}

var inline = map[atom.Atom]bool{
	atom.I: true, atom.B: true, atom.Em: true, atom.Strong: true, atom.U: true, atom.S: true, atom.Strike: true,
	atom.Span: true, atom.Font: true, atom.Small: true, atom.Big: true, atom.Mark: true, atom.Sub: true, atom.Sup: true,
	atom.Del: true, atom.Ins: true, atom.Code: true, atom.Tt: true, atom.Nobr: true,
}

var block = map[atom.Atom]bool{
	atom.P: true, atom.Div: true, atom.Ul: true, atom.Ol: true, atom.Dl: true, atom.Table: true, atom.Pre: true,
	atom.Blockquote: true, atom.H1: true, atom.H2: true, atom.H3: true, atom.H4: true, atom.H5: true, atom.H6: true,
	atom.Section: true, atom.Article: true, atom.Header: true, atom.Figure: true, atom.Hr: true,
}

func hasBlock(n *html.Node) bool {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.ElementNode && (block[c.DataAtom] || hasBlock(c)) {
			return true
		}
	}
	return false
}

// flatten leaves a preformatted block (or the one <code> in it, which
// names the language) with its text only, <br> as a line break: markup
// inside a code block is not Markdown, and an unclosed <i> before it (the
// parser carries it into the block) must not turn it into inline code.
func flatten(pre *html.Node) {
	target := pre
	if c := pre.FirstChild; c != nil && c == pre.LastChild && c.DataAtom == atom.Code {
		target = c
	}
	text := preText(target)
	for c := target.FirstChild; c != nil; c = target.FirstChild {
		target.RemoveChild(c)
	}
	target.AppendChild(&html.Node{Type: html.TextNode, Data: text})
}

// preText is the text of a preformatted block as a reader sees it.
func preText(n *html.Node) string {
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		switch {
		case n.Type == html.TextNode:
			b.WriteString(n.Data)
		case n.Type == html.ElementNode && n.DataAtom == atom.Br:
			b.WriteString("\n")
		case n.Type == html.ElementNode && (skipped[n.DataAtom] || hidden(n)):
			return
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return b.String()
}

func usefulURL(u string) bool {
	u = strings.ToLower(strings.TrimSpace(u))
	return u != "" && !strings.HasPrefix(u, "javascript:") && !strings.HasPrefix(u, "data:")
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
