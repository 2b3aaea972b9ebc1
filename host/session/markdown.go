package session

import (
	"fmt"
	"io"
	"strings"

	"github.com/wasmagent/wasmagent/host"
)

// WriteMarkdown writes the current branch of t as plain Markdown: a
// heading per message, text as it is, tool calls and results as fenced
// blocks.
func WriteMarkdown(w io.Writer, t *Transcript) error {
	var b strings.Builder
	title := t.Name()
	if title == "" {
		title = "Session " + t.Header.ID
	}
	fmt.Fprintf(&b, "# %s\n\n", title)
	fmt.Fprintf(&b, "- id: `%s`\n- started: %s\n- directory: `%s`\n", t.Header.ID, t.Header.Timestamp, t.Header.Cwd)
	if t.Header.ParentSession != "" {
		fmt.Fprintf(&b, "- forked from: `%s`\n", t.Header.ParentSession)
	}
	for _, m := range t.View(t.Leaf()).Messages {
		writeMessage(&b, m)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func writeMessage(b *strings.Builder, m host.Message) {
	switch m := m.(type) {
	case *host.UserMessage:
		b.WriteString("\n## User\n\n")
		writeContents(b, m.Content)
	case *host.AssistantMessage:
		fmt.Fprintf(b, "\n## Assistant (%s)\n\n", m.Model)
		writeContents(b, m.Content)
		if m.ErrorMessage != "" {
			fmt.Fprintf(b, "> %s: %s\n\n", m.StopReason, m.ErrorMessage)
		}
	case *host.ToolResultMessage:
		status := "result"
		if m.IsError {
			status = "error"
		}
		fmt.Fprintf(b, "\n### Tool %s: %s (`%s`)\n\n", status, m.ToolName, m.ToolCallID)
		writeContents(b, m.Content)
	case *host.CustomMessage:
		fmt.Fprintf(b, "\n## %s\n\n%s\n", m.Role, fence("json", string(m.Raw)))
	}
}

func writeContents(b *strings.Builder, cs host.Contents) {
	for _, c := range cs {
		switch c := c.(type) {
		case host.TextContent:
			b.WriteString(c.Text + "\n\n")
		case host.ThinkingContent:
			for _, line := range strings.Split(c.Thinking, "\n") {
				b.WriteString("> " + line + "\n")
			}
			b.WriteString("\n")
		case host.ToolCall:
			fmt.Fprintf(b, "**Tool call** %s (`%s`)\n\n%s\n", c.Name, c.ID, fence("json", string(host.ArgumentsJSON(c.Arguments))))
		case host.ImageContent:
			fmt.Fprintf(b, "*[image: %s, %d bytes of base64]*\n\n", c.MimeType, len(c.Data))
		case host.UnknownContent:
			b.WriteString(fence("json", string(c.Raw)))
			b.WriteString("\n")
		}
	}
}

// fence wraps s in a code fence longer than any backtick run inside it.
func fence(lang, s string) string {
	f := "```"
	for strings.Contains(s, f) {
		f += "`"
	}
	return f + lang + "\n" + s + "\n" + f + "\n"
}
