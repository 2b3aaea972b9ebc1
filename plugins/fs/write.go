package main

import (
	"fmt"
	"os"
	"path"
	"strings"

	"github.com/wasmagent/wasmagent/internal/words"
	"github.com/wasmagent/wasmagent/sdk"
)

type writeArgs struct {
	Path    string `json:"path" description:"file to create or overwrite"`
	Content string `json:"content" description:"the whole new content"`
}

func write(c *sdk.Call, a writeArgs) (*sdk.Result, error) {
	p, err := resolve(c, a.Path)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(path.Dir(p), 0o755); err != nil {
		return nil, fmt.Errorf("%s: creating its directory: %w", a.Path, unwrapPath(c, err))
	}
	_, statErr := os.Stat(p)
	if err := os.WriteFile(p, []byte(a.Content), 0o644); err != nil {
		return nil, fmt.Errorf("%s: %w", a.Path, unwrapPath(c, err))
	}
	verb := "Created"
	if statErr == nil {
		verb = "Overwrote"
	}
	return sdk.Textf("%s %s (%s)", verb, a.Path, words.Count(len(a.Content), "byte")).WithDetails(map[string]any{"path": display(c, p), "bytes": len(a.Content), "created": statErr != nil}), nil
}

type editArgs struct {
	Path    string `json:"path" description:"file to edit"`
	OldText string `json:"oldText" description:"text to replace; must appear exactly once"`
	NewText string `json:"newText" description:"replacement text"`
}

func edit(c *sdk.Call, a editArgs) (*sdk.Result, error) {
	if a.OldText == "" {
		return nil, fmt.Errorf("oldText is empty; use write to create a file")
	}
	p, err := resolve(c, a.Path)
	if err != nil {
		return nil, err
	}
	data, err := os.ReadFile(p)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", a.Path, unwrapPath(c, err))
	}
	text := string(data)
	old, repl := a.OldText, a.NewText
	if strings.Contains(text, "\r\n") && !strings.Contains(old, "\r\n") {
		// The model writes \n; the file uses \r\n.
		old, repl = strings.ReplaceAll(old, "\n", "\r\n"), strings.ReplaceAll(repl, "\n", "\r\n")
	}
	n := strings.Count(text, old)
	switch {
	case n == 0:
		return nil, fmt.Errorf("oldText was not found in %s; read the file and copy the text exactly", a.Path)
	case n > 1:
		return nil, fmt.Errorf("oldText appears %s in %s (at lines %s); include more context to make it unique", words.Count(n, "time"), a.Path, matchLines(text, old))
	}
	i := strings.Index(text, old)
	updated := text[:i] + repl + text[i+len(old):]
	if err := os.WriteFile(p, []byte(updated), 0o644); err != nil {
		return nil, fmt.Errorf("%s: %w", a.Path, unwrapPath(c, err))
	}
	line := strings.Count(text[:i], "\n") + 1
	return sdk.Textf("Edited %s at line %d", a.Path, line).WithDetails(map[string]any{
		"path": display(c, p), "line": line, "diff": unifiedDiff(display(c, p), text, updated),
	}), nil
}

// matchLines lists the lines where s starts in text.
func matchLines(text, s string) string {
	var lines []string
	for off := 0; ; {
		i := strings.Index(text[off:], s)
		if i < 0 || len(lines) == 10 {
			break
		}
		lines = append(lines, fmt.Sprint(strings.Count(text[:off+i], "\n")+1))
		off += i + len(s)
	}
	return strings.Join(lines, ", ")
}

// unifiedDiff is a unified diff of one contiguous change, with three lines
// of context (edit changes one region).
func unifiedDiff(name, a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	pre := 0
	for pre < len(al) && pre < len(bl) && al[pre] == bl[pre] {
		pre++
	}
	suf := 0
	for suf < len(al)-pre && suf < len(bl)-pre && al[len(al)-1-suf] == bl[len(bl)-1-suf] {
		suf++
	}
	start := max(pre-3, 0)
	aEnd, bEnd := min(len(al)-suf+3, len(al)), min(len(bl)-suf+3, len(bl))
	var d strings.Builder
	fmt.Fprintf(&d, "--- a/%s\n+++ b/%s\n@@ -%d,%d +%d,%d @@\n", name, name, start+1, aEnd-start, start+1, bEnd-start)
	for i := start; i < pre; i++ {
		d.WriteString(" " + al[i] + "\n")
	}
	for i := pre; i < len(al)-suf; i++ {
		d.WriteString("-" + al[i] + "\n")
	}
	for i := pre; i < len(bl)-suf; i++ {
		d.WriteString("+" + bl[i] + "\n")
	}
	for i := len(al) - suf; i < aEnd; i++ {
		d.WriteString(" " + al[i] + "\n")
	}
	return d.String()
}
