package host_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/wasmagent/wasmagent/host"
	"github.com/wasmagent/wasmagent/host/scripted"
)

// piModel is the faux provider with diff.mjs's responses: a scripted
// model fed one turn per request, the digest of the request appended
// where the scenario asks for it.
type piModel struct {
	replay *scripted.Model
	turns  []scripted.Turn
	raw    []*piTurn // the raw turns, by index
	digest []bool
	mu     sync.Mutex
	next   int
}

func (m *piModel) ModelInfo() host.ModelInfo { return m.replay.ModelInfo() }

func (m *piModel) Stream(ctx context.Context, req *host.Request, emit func(host.AssistantMessageEvent)) *host.AssistantMessage {
	m.mu.Lock()
	i := m.next
	m.next++
	m.mu.Unlock()
	if i < len(m.raw) && m.raw[i] != nil {
		events, final, err := rawEvents(m.raw[i])
		if err != nil {
			panic(err) // the generator's own JSON: cannot fail
		}
		for _, e := range events {
			emit(e)
		}
		return final
	}
	if i < len(m.turns) {
		t := m.turns[i]
		if m.digest[i] && t.Throw == "" {
			t.Content = append(slices.Clone(t.Content), host.TextContent{Text: piDigest(req)})
		}
		m.replay.Push(t)
	}
	return m.replay.Stream(ctx, req, emit)
}

// piDigest describes the request the model received, as diff.mjs's digest.
func piDigest(req *host.Request) string {
	var msgs []string
	for _, m := range req.Messages {
		switch m := m.(type) {
		case *host.UserMessage:
			msgs = append(msgs, "u:"+piTexts(m.Content))
		case *host.ToolResultMessage:
			text := validationLines.ReplaceAllString(piTexts(m.Content), "$1  - …$2")
			msgs = append(msgs, fmt.Sprintf("r:%s:%s:%t:%s", m.ToolCallID, m.ToolName, m.IsError, text))
		case *host.AssistantMessage:
			var blocks []string
			for _, b := range m.Content {
				switch b := b.(type) {
				case host.ToolCall:
					blocks = append(blocks, fmt.Sprintf("call %s %s %s", b.ID, b.Name, b.Arguments))
				case host.TextContent:
					blocks = append(blocks, "text "+b.Text)
				case host.ThinkingContent:
					blocks = append(blocks, "thinking "+b.Thinking)
				}
			}
			msgs = append(msgs, fmt.Sprintf("a:%s:%s:%s", m.StopReason, m.ErrorMessage, strings.Join(blocks, "|")))
		default:
			msgs = append(msgs, "?"+m.MessageRole())
		}
	}
	var tools []string
	for _, t := range req.Tools {
		tools = append(tools, t.Name)
	}
	return fmt.Sprintf("seen: system=%s reasoning=%s tools=%s messages=%s", req.SystemPrompt, req.Reasoning, strings.Join(tools, ","), strings.Join(msgs, " / "))
}

// piTexts is diff.mjs's texts: text blocks as they are, others as [type].
func piTexts(c host.Contents) string {
	var out []string
	for _, b := range c {
		if t, ok := b.(host.TextContent); ok {
			out = append(out, t.Text)
			continue
		}
		v, _ := json.Marshal(b)
		var typed struct{ Type string }
		json.Unmarshal(v, &typed)
		out = append(out, "["+typed.Type+"]")
	}
	return strings.Join(out, "|")
}
