package mcp

import (
	"context"
	"fmt"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wasmagent/wasmagent/host"
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
					"approve": map[string]any{"type": "boolean", "title": "Run " + q.ToolCall.Name + "?", "default": false},
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

// question is the text the client shows: who asks, about which call.
func question(q host.Question) string {
	args := string(q.Args)
	if len(args) > 2000 {
		args = args[:2000] + "…"
	}
	return fmt.Sprintf("%s asks: %s\n\nTool: %s\nArguments: %s", q.Hook, q.Text, q.ToolCall.Name, args)
}
