package host_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/wasmagent/wasmagent/host"
)

// A raw turn is a model stream given event by event (piTurn.Raw), for the
// shapes pi-ai's faux provider never makes: no start, a second start, an
// error in the middle of a block, a stream that ends without done or
// error, events after done. diff.mjs streams it with a stream function of
// its own; piModel emits it as it is. Its messages are pi-ai's without
// api, provider, model, usage and timestamp (which diff.mjs fills in and
// the comparison removes).
type piRawEvent struct {
	Type         string        `json:"type"`
	ContentIndex *int          `json:"contentIndex,omitempty"`
	Delta        *string       `json:"delta,omitempty"`
	Content      *string       `json:"content,omitempty"`
	ToolCall     *piBlock      `json:"toolCall,omitempty"`
	Partial      *piRawMessage `json:"partial,omitempty"`
	Reason       string        `json:"reason,omitempty"`
	Message      *piRawMessage `json:"message,omitempty"`
	Error        *piRawMessage `json:"error,omitempty"`
}

type piRawMessage struct {
	Role         string    `json:"role"`
	Content      []piBlock `json:"content"`
	StopReason   string    `json:"stopReason"`
	ErrorMessage string    `json:"errorMessage,omitempty"`
}

// rawStream turns t into a raw turn: its content streamed block by block
// (deltas of at most two pieces), with now and then a shape pi's faux
// provider never makes. The final message, the stream's result, is the
// last done or error event's, else t's own (rawFinal).
func (g *piGen) rawStream(t *piTurn) {
	final := &piRawMessage{Role: "assistant", Content: slices.Clone(t.Content), StopReason: t.StopReason, ErrorMessage: t.ErrorMessage}
	if final.Content == nil {
		final.Content = []piBlock{}
	}
	for i := range final.Content { // now and then a signature, as real providers send
		b := &final.Content[i]
		if g.chance(4) {
			switch b.Type {
			case "text":
				b.TextSignature = "ts"
			case "thinking":
				b.ThinkingSignature, b.Redacted = "sig", g.chance(2)
			case "toolCall":
				b.ThoughtSignature = "th"
			}
		}
	}
	snapshot := func(content []piBlock) *piRawMessage {
		m := *final
		m.Content = slices.Clone(content)
		return &m
	}
	var evs []piRawEvent
	partial := []piBlock{}
	if !g.chance(6) {
		evs = append(evs, piRawEvent{Type: "start", Partial: snapshot(partial)})
	}
	for i, b := range final.Content {
		if g.chance(12) { // a second start, in the middle of the message
			evs = append(evs, piRawEvent{Type: "start", Partial: snapshot(partial)})
		}
		kind, text := "text", ""
		empty := piBlock{Type: b.Type}
		switch b.Type {
		case "text":
			text, empty.Text = *b.Text, new(string)
		case "thinking":
			kind, text, empty.Thinking = "thinking", *b.Thinking, new(string)
		case "toolCall":
			kind, text = "toolcall", string(b.Arguments)
			empty.ID, empty.Name, empty.Arguments = b.ID, b.Name, json.RawMessage(`{}`)
		}
		partial = append(partial, empty)
		evs = append(evs, piRawEvent{Type: kind + "_start", ContentIndex: &i, Partial: snapshot(partial)})
		cut := len([]rune(text)) / 2
		for _, piece := range []string{string([]rune(text)[:cut]), string([]rune(text)[cut:])} {
			if piece == "" {
				continue
			}
			switch b.Type {
			case "text":
				s := *partial[i].Text + piece
				partial[i].Text = &s
			case "thinking":
				s := *partial[i].Thinking + piece
				partial[i].Thinking = &s
			}
			evs = append(evs, piRawEvent{Type: kind + "_delta", ContentIndex: &i, Delta: &piece, Partial: snapshot(partial)})
			if g.chance(15) { // an error in the middle of the block
				aborted := snapshot(partial)
				aborted.StopReason, aborted.ErrorMessage = "aborted", "Request was aborted"
				t.Raw = append(evs, piRawEvent{Type: "error", Reason: "aborted", Error: aborted})
				t.Content, t.StopReason, t.ErrorMessage = aborted.Content, "aborted", aborted.ErrorMessage
				return
			}
		}
		partial[i] = b
		end := piRawEvent{Type: kind + "_end", ContentIndex: &i, Partial: snapshot(partial)}
		if b.Type == "toolCall" {
			end.ToolCall = &b
		} else {
			end.Content = &text
		}
		evs = append(evs, end)
	}
	end := "done"
	if final.StopReason == "error" || final.StopReason == "aborted" {
		end = "error"
	}
	if g.chance(10) { // the other end event: the message's stop reason decides all the same
		end = map[string]string{"done": "error", "error": "done"}[end]
	}
	switch {
	case g.chance(8): // the stream ends with neither done nor error
	case end == "error":
		evs = append(evs, piRawEvent{Type: "error", Reason: final.StopReason, Error: final})
	default:
		evs = append(evs, piRawEvent{Type: "done", Reason: final.StopReason, Message: final})
		if g.chance(6) { // events after the end: ignored
			zero, late := 0, "late"
			evs = append(evs, piRawEvent{Type: "text_start", ContentIndex: &zero, Partial: snapshot([]piBlock{})},
				piRawEvent{Type: "done", Reason: "stop", Message: &piRawMessage{Role: "assistant", Content: []piBlock{{Type: "text", Text: &late}}, StopReason: "stop"}})
		}
	}
	t.Raw = evs
}

// rawFinal is a raw turn's result: the message of its first done or error
// event, else the turn's own message.
func rawFinal(t *piTurn) *piRawMessage {
	for _, e := range t.Raw {
		switch {
		case e.Type == "done" && e.Message != nil:
			return e.Message
		case e.Type == "error" && e.Error != nil:
			return e.Error
		}
	}
	content := t.Content
	if content == nil {
		content = []piBlock{}
	}
	return &piRawMessage{Role: "assistant", Content: content, StopReason: t.StopReason, ErrorMessage: t.ErrorMessage}
}

// rawEvents decodes a raw turn's events for our loop.
func rawEvents(t *piTurn) ([]host.AssistantMessageEvent, *host.AssistantMessage, error) {
	msg := func(m *piRawMessage) (*host.AssistantMessage, error) {
		if m == nil {
			return nil, nil
		}
		b, err := json.Marshal(m)
		if err != nil {
			return nil, err
		}
		var out struct {
			Content      host.Contents
			StopReason   host.StopReason
			ErrorMessage string
		}
		if err := json.Unmarshal(b, &out); err != nil {
			return nil, fmt.Errorf("raw message %s: %w", b, err)
		}
		// Stamped as diff.mjs stamps it (and the comparison removes).
		return &host.AssistantMessage{Content: out.Content, StopReason: out.StopReason, ErrorMessage: out.ErrorMessage, Timestamp: time.Now().UnixMilli()}, nil
	}
	var out []host.AssistantMessageEvent
	for _, e := range t.Raw {
		he := host.AssistantMessageEvent{Type: e.Type, Reason: host.StopReason(e.Reason)}
		if e.ContentIndex != nil {
			he.ContentIndex = *e.ContentIndex
		}
		if e.Delta != nil {
			he.Delta = *e.Delta
		}
		if e.Content != nil {
			he.Content = *e.Content
		}
		if e.ToolCall != nil {
			he.ToolCall = &host.ToolCall{ID: e.ToolCall.ID, Name: e.ToolCall.Name, Arguments: e.ToolCall.Arguments, ThoughtSignature: e.ToolCall.ThoughtSignature}
		}
		var err error
		for _, p := range []struct {
			dst **host.AssistantMessage
			src *piRawMessage
		}{{&he.Partial, e.Partial}, {&he.Message, e.Message}, {&he.Error, e.Error}} {
			if *p.dst, err = msg(p.src); err != nil {
				return nil, nil, err
			}
		}
		out = append(out, he)
	}
	final, err := msg(rawFinal(t))
	return out, final, err
}
