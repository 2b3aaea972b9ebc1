package scripted

import (
	"context"

	"github.com/wasmagent/wasmagent/host"
)

// streamer emits the events of one turn's content blocks.
type streamer struct {
	m       *Model
	ctx     context.Context
	emit    func(host.AssistantMessageEvent)
	partial *host.AssistantMessage
	delay   int
}

// block streams content block i; it reports false if the request was
// aborted while it did.
func (s *streamer) block(i int, b host.Content) bool {
	switch b := b.(type) {
	case host.ThinkingContent:
		return s.textual(i, b.Thinking, host.ThinkingContent{}, host.StreamThinkingStart, host.StreamThinkingDelta, host.StreamThinkingEnd,
			func(c host.Content, chunk string) host.Content {
				t := c.(host.ThinkingContent)
				t.Thinking += chunk
				return t
			})
	case host.TextContent:
		return s.textual(i, b.Text, host.TextContent{}, host.StreamTextStart, host.StreamTextDelta, host.StreamTextEnd,
			func(c host.Content, chunk string) host.Content {
				t := c.(host.TextContent)
				t.Text += chunk
				return t
			})
	case host.ToolCall:
		return s.toolCall(i, b)
	}
	return true
}

func (s *streamer) textual(i int, text string, empty host.Content, startType, deltaType, endType string, add func(host.Content, string) host.Content) bool {
	s.partial.Content = append(s.partial.Content, empty)
	s.emit(host.AssistantMessageEvent{Type: startType, ContentIndex: i, Partial: s.partial.Clone()})
	for _, chunk := range chunks(text, s.m.chunkTokens) {
		if !sleep(s.ctx, s.delay) {
			return false
		}
		s.partial.Content[i] = add(s.partial.Content[i], chunk)
		s.emit(host.AssistantMessageEvent{Type: deltaType, ContentIndex: i, Delta: chunk, Partial: s.partial.Clone()})
	}
	s.emit(host.AssistantMessageEvent{Type: endType, ContentIndex: i, Content: text, Partial: s.partial.Clone()})
	return true
}

func (s *streamer) toolCall(i int, call host.ToolCall) bool {
	s.partial.Content = append(s.partial.Content, host.ToolCall{ID: call.ID, Name: call.Name, Arguments: []byte(`{}`)})
	s.emit(host.AssistantMessageEvent{Type: host.StreamToolCallStart, ContentIndex: i, Partial: s.partial.Clone()})
	for _, chunk := range chunks(string(call.Arguments), s.m.chunkTokens) {
		if !sleep(s.ctx, s.delay) {
			return false
		}
		s.emit(host.AssistantMessageEvent{Type: host.StreamToolCallDelta, ContentIndex: i, Delta: chunk, Partial: s.partial.Clone()})
	}
	// The partial's block gets the arguments only, as the faux provider's
	// does; the end event's block, and the final message's, are whole
	// (with a thoughtSignature).
	s.partial.Content[i] = host.ToolCall{ID: call.ID, Name: call.Name, Arguments: call.Arguments}
	tc := call
	s.emit(host.AssistantMessageEvent{Type: host.StreamToolCallEnd, ContentIndex: i, ToolCall: &tc, Partial: s.partial.Clone()})
	return true
}

// chunks splits text into consecutive slices of 4*tokens characters; an
// empty text gives one empty chunk (pi's splitStringByTokenSize with a
// fixed token size).
func chunks(text string, tokens int) []string {
	size := 4 * tokens
	runes := []rune(text)
	if len(runes) == 0 {
		return []string{""}
	}
	var out []string
	for len(runes) > 0 {
		n := min(size, len(runes))
		out = append(out, string(runes[:n]))
		runes = runes[n:]
	}
	return out
}
