package openai

import (
	"encoding/json"
	"fmt"

	oai "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/shared"

	"github.com/wasmagent/wasmagent/host"
)

// params builds the request: the system prompt, the transcript in chat
// completions form, the tools as functions, and the options.
func (m *Model) params(req *host.Request) (oai.ChatCompletionNewParams, error) {
	p := oai.ChatCompletionNewParams{
		Model:         shared.ChatModel(m.opts.Model),
		StreamOptions: oai.ChatCompletionStreamOptionsParam{IncludeUsage: oai.Bool(true)},
	}
	if req.SystemPrompt != "" {
		p.Messages = append(p.Messages, oai.SystemMessage(req.SystemPrompt))
	}
	p.Messages = append(p.Messages, messages(req.Messages)...)
	for _, t := range req.Tools {
		var params map[string]any
		if len(t.Parameters) > 0 {
			if err := json.Unmarshal(t.Parameters, &params); err != nil {
				return p, fmt.Errorf("tool %s: parameters: %w", t.Name, err)
			}
		}
		fd := shared.FunctionDefinitionParam{Name: t.Name, Parameters: shared.FunctionParameters(params)}
		if t.Description != "" {
			fd.Description = oai.String(t.Description)
		}
		p.Tools = append(p.Tools, oai.ChatCompletionFunctionTool(fd))
	}
	if m.opts.Temperature != nil {
		p.Temperature = oai.Float(*m.opts.Temperature)
	}
	if m.opts.MaxTokens > 0 {
		p.MaxCompletionTokens = oai.Int(m.opts.MaxTokens)
	}
	effort := m.opts.ReasoningEffort
	if req.Reasoning != "" && req.Reasoning != "off" {
		effort = req.Reasoning
	}
	if effort != "" {
		p.ReasoningEffort = shared.ReasoningEffort(effort)
	}
	return p, nil
}

// messages converts a transcript. Assistant messages that failed or were
// aborted are left out with their tool results (the server would reject
// their dangling calls); a tool call with no result gets one saying so,
// since the API requires an answer to every call; images in tool results
// follow in a user message, since tool messages carry only text.
func messages(msgs []host.Message) []oai.ChatCompletionMessageParamUnion {
	answered := map[string]bool{}
	for _, m := range msgs {
		if r, ok := m.(*host.ToolResultMessage); ok {
			answered[r.ToolCallID] = true
		}
	}
	kept := map[string]bool{}
	var out []oai.ChatCompletionMessageParamUnion
	var pending []string // calls of the last assistant message still unanswered
	flush := func() {
		for _, id := range pending {
			if !answered[id] {
				out = append(out, oai.ToolMessage("No result provided", id))
			}
		}
		pending = nil
	}
	for _, m := range msgs {
		switch m := m.(type) {
		case *host.UserMessage:
			flush()
			out = append(out, userMessage(m.Content))
		case *host.AssistantMessage:
			flush()
			if m.StopReason == host.StopReasonError || m.StopReason == host.StopReasonAborted {
				continue
			}
			a := oai.ChatCompletionAssistantMessageParam{}
			if text := m.Content.TextOf(); text != "" {
				a.Content.OfString = oai.String(text)
			}
			for _, c := range m.Content.ToolCalls() {
				kept[c.ID] = true
				pending = append(pending, c.ID)
				a.ToolCalls = append(a.ToolCalls, oai.ChatCompletionMessageToolCallUnionParam{
					OfFunction: &oai.ChatCompletionMessageFunctionToolCallParam{
						ID:       c.ID,
						Function: oai.ChatCompletionMessageFunctionToolCallFunctionParam{Name: c.Name, Arguments: string(host.ArgumentsJSON(c.Arguments))},
					},
				})
			}
			if a.Content.OfString.Valid() || len(a.ToolCalls) > 0 {
				out = append(out, oai.ChatCompletionMessageParamUnion{OfAssistant: &a})
			}
		case *host.ToolResultMessage:
			if !kept[m.ToolCallID] {
				continue
			}
			text := m.Content.TextOf()
			if text == "" {
				text = "(no text)"
			}
			out = append(out, oai.ToolMessage(text, m.ToolCallID))
			var images host.Contents
			for _, c := range m.Content {
				if img, ok := c.(host.ImageContent); ok {
					images = append(images, img)
				}
			}
			if len(images) > 0 {
				out = append(out, userMessage(append(host.Contents{host.TextContent{Text: "Images returned by the " + m.ToolName + " tool:"}}, images...)))
			}
		}
	}
	flush()
	return out
}

func userMessage(content host.Contents) oai.ChatCompletionMessageParamUnion {
	hasImage := false
	for _, c := range content {
		if _, ok := c.(host.ImageContent); ok {
			hasImage = true
		}
	}
	if !hasImage {
		return oai.UserMessage(content.TextOf())
	}
	var parts []oai.ChatCompletionContentPartUnionParam
	for _, c := range content {
		switch c := c.(type) {
		case host.TextContent:
			parts = append(parts, oai.TextContentPart(c.Text))
		case host.ImageContent:
			parts = append(parts, oai.ImageContentPart(oai.ChatCompletionContentPartImageImageURLParam{URL: "data:" + c.MimeType + ";base64," + c.Data}))
		}
	}
	return oai.UserMessage(parts)
}
