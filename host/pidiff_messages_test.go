package host_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

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
// starting "@note ", a text and an image for one starting "@image ", an
// assistant message for "@assistant ", a result of call h1 for "@result ",
// and the message given as JSON for "@json ".
func piMessage(text string) host.Message {
	if given, ok := strings.CutPrefix(text, "@json "); ok {
		m, err := host.DecodeMessage([]byte(given))
		if err != nil {
			panic(fmt.Sprintf("a given message: %v: %s", err, given)) // the generator's own JSON
		}
		return m
	}
	if note, ok := strings.CutPrefix(text, "@note "); ok {
		raw, _ := json.Marshal(struct {
			Role      string `json:"role"`
			Text      string `json:"text"`
			Timestamp int    `json:"timestamp"`
		}{"note", note, 1})
		return &host.CustomMessage{Role: "note", Raw: raw}
	}
	if text, ok := strings.CutPrefix(text, "@assistant "); ok {
		return &host.AssistantMessage{Content: host.Text(text), API: "faux", Provider: "faux", Model: "faux-1", StopReason: host.StopReasonStop, Timestamp: 1}
	}
	if text, ok := strings.CutPrefix(text, "@result "); ok {
		return &host.ToolResultMessage{ToolCallID: "h1", ToolName: "echo", Content: host.Text(text), Timestamp: 1}
	}
	if text, ok := strings.CutPrefix(text, "@image "); ok {
		return &host.UserMessage{Content: host.Contents{host.TextContent{Text: text}, host.ImageContent{Data: "aGk=", MimeType: "image/png"}}, Timestamp: 1}
	}
	return user(text)
}

// convertNotesOrFail is diff.mjs's convertToLlm: its call number
// sc.ConvertFail fails; with sc.ConvertNotes, notes become user messages
// "[note] text"; roles other than user, assistant and toolResult are
// dropped.
func convertNotesOrFail(sc *piScenario) func(context.Context, []host.Message) ([]host.Message, error) {
	var mu sync.Mutex
	calls := 0
	return func(_ context.Context, ms []host.Message) ([]host.Message, error) {
		mu.Lock()
		calls++
		n := calls
		mu.Unlock()
		if n == sc.ConvertFail {
			return nil, errors.New("convert failed")
		}
		return convertNotes(sc.ConvertNotes, ms), nil
	}
}

func convertNotes(notes bool, ms []host.Message) []host.Message {
	var out []host.Message
	for _, m := range ms {
		if c, ok := m.(*host.CustomMessage); ok && c.Role == "note" && notes {
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
	return out
}

// piRoles is diff.mjs's roles: each message's role, a tool result's with
// its call id.
func piRoles(ms []host.Message) string {
	roles := make([]string, len(ms))
	for i, m := range ms {
		roles[i] = m.MessageRole()
		if tr, ok := m.(*host.ToolResultMessage); ok {
			roles[i] += " " + tr.ToolCallID
		}
	}
	return strings.Join(roles, ",")
}

// piSeenBy is diff.mjs's seenBy: what a hook was told besides the
// arguments, and whether its context (pi: its signal) was aborted.
func piSeenBy(ctx context.Context, c *host.ToolCallContext) string {
	tools := make([]string, len(c.Context.Tools))
	for i, t := range c.Context.Tools {
		tools[i] = t.Info().Name
	}
	return fmt.Sprintf("ctx=%s system=%s tools=%s msg=%s/%d aborted=%t", piRoles(c.Context.Messages), c.Context.SystemPrompt,
		strings.Join(tools, ","), c.AssistantMessage.StopReason, len(c.AssistantMessage.Content), ctx.Err() != nil)
}

// piStringify is JSON.stringify of v: no HTML escapes.
func piStringify(v any) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "(" + err.Error() + ")"
	}
	return strings.TrimSuffix(b.String(), "\n")
}
