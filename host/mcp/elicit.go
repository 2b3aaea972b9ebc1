package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wasmagent/wasmagent/host"
	"github.com/wasmagent/wasmagent/internal/safetext"
)

// elicitor is the approver that asks the session's client (MCP
// elicitation, a form with one boolean), or nil when the client cannot
// answer or Options.NoElicitation is set: then the runner's own approver,
// or the hook's on_ask, decides.
func (s *Server) elicitor(ss *sdk.ServerSession) host.Approver {
	if s.opts.NoElicitation || ss == nil {
		return nil
	}
	p := ss.InitializeParams()
	if p == nil || p.Capabilities == nil || p.Capabilities.Elicitation == nil {
		return nil
	}
	if e := p.Capabilities.Elicitation; e.Form == nil && e.URL != nil {
		return nil // URL elicitation only: no form to answer in
	}
	return host.ApproverFunc(func(ctx context.Context, q host.Question) (bool, error) {
		res, err := ss.Elicit(ctx, &sdk.ElicitParams{
			Mode:    "form",
			Message: question(q),
			RequestedSchema: map[string]any{
				"type": "object",
				"properties": map[string]any{
					"approve": map[string]any{"type": "boolean", "title": "Run " + shown(q.ToolCall.Name, maxQuestionName) + "?", "default": false},
				},
				"required": []string{"approve"},
			},
		})
		if err != nil {
			return false, fmt.Errorf("the client did not answer: %w", err)
		}
		approved, _ := res.Content["approve"].(bool)
		return res.Action == "accept" && approved, nil
	})
}

// The most of a hook's question and of a call's arguments shown: a hook
// or a model must not flood the client's screen.
const (
	maxQuestionText = 1000
	maxQuestionArgs = 2000
	maxQuestionName = 200
)

// question is the text the client shows: who asks, about which call. Each
// part is cleaned (internal/safetext) and bounded, so that the lines of
// the message are the host's own.
func question(q host.Question) string {
	args := q.Args
	var b bytes.Buffer
	if json.Compact(&b, args) == nil {
		args = b.Bytes()
	}
	return fmt.Sprintf("%s asks: %s\n\nTool: %s\nArguments: %s", shown(q.Hook, maxQuestionName), shown(q.Text, maxQuestionText),
		shown(q.ToolCall.Name, maxQuestionName), shown(string(args), maxQuestionArgs))
}

// shown is s cleaned and clipped to max runes.
func shown(s string, max int) string { return safetext.Clip(safetext.Clean(s), max) }
