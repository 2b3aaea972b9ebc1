package host_test

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/wasmagent/wasmagent/host"
)

// piHistory is diff.mjs's history: an earlier exchange with echo.
func piHistory(on bool) []host.Message {
	if !on {
		return nil
	}
	return []host.Message{
		user("earlier"),
		&host.AssistantMessage{
			Content: host.Contents{host.ToolCall{ID: "h1", Name: "echo", Arguments: json.RawMessage(`{}`)}},
			API:     "faux", Provider: "faux", Model: "faux-1", StopReason: host.StopReasonToolUse, Timestamp: 1,
		},
		&host.ToolResultMessage{ToolCallID: "h1", ToolName: "echo", Content: host.Text("earlier result"), Timestamp: 1},
	}
}

// piMessage is a user message, a "note" (a custom message) for a text
// starting "@note ", or a text and an image for one starting "@image ".
func piMessage(text string) host.Message {
	if note, ok := strings.CutPrefix(text, "@note "); ok {
		raw, _ := json.Marshal(struct {
			Role      string `json:"role"`
			Text      string `json:"text"`
			Timestamp int    `json:"timestamp"`
		}{"note", note, 1})
		return &host.CustomMessage{Role: "note", Raw: raw}
	}
	if text, ok := strings.CutPrefix(text, "@image "); ok {
		return &host.UserMessage{Content: host.Contents{host.TextContent{Text: text}, host.ImageContent{Data: "aGk=", MimeType: "image/png"}}, Timestamp: 1}
	}
	return user(text)
}

// convertNotes is diff.mjs's convertToLlm with convertNotes: notes become
// user messages "[note] text", other roles than user, assistant and
// toolResult are dropped.
func convertNotes(_ context.Context, ms []host.Message) ([]host.Message, error) {
	var out []host.Message
	for _, m := range ms {
		if c, ok := m.(*host.CustomMessage); ok && c.Role == "note" {
			var n struct{ Text string }
			json.Unmarshal(c.Raw, &n)
			out = append(out, user("[note] "+n.Text))
			continue
		}
		switch m.MessageRole() {
		case host.RoleUser, host.RoleAssistant, host.RoleToolResult:
			out = append(out, m)
		}
	}
	return out, nil
}
