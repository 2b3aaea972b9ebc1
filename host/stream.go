package host

// AssistantMessageEvent is one step of a streamed model response (pi-ai's
// AssistantMessageEvent). Type selects which fields are meaningful:
//
//	start                                          Partial
//	text_start, thinking_start, toolcall_start     ContentIndex, Partial
//	text_delta, thinking_delta, toolcall_delta     ContentIndex, Delta, Partial
//	text_end, thinking_end                         ContentIndex, Content, Partial
//	toolcall_end                                   ContentIndex, ToolCall, Partial
//	done                                           Reason, Message
//	error                                          Reason, Error
type AssistantMessageEvent struct {
	Type         string
	ContentIndex int
	Delta        string
	Content      string
	ToolCall     *ToolCall
	Partial      *AssistantMessage
	Reason       StopReason
	Message      *AssistantMessage
	Error        *AssistantMessage
}

// Names of the AssistantMessageEvent types.
const (
	StreamStart         = "start"
	StreamTextStart     = "text_start"
	StreamTextDelta     = "text_delta"
	StreamTextEnd       = "text_end"
	StreamThinkingStart = "thinking_start"
	StreamThinkingDelta = "thinking_delta"
	StreamThinkingEnd   = "thinking_end"
	StreamToolCallStart = "toolcall_start"
	StreamToolCallDelta = "toolcall_delta"
	StreamToolCallEnd   = "toolcall_end"
	StreamDone          = "done"
	StreamError         = "error"
)

// isBlockEvent reports whether the event belongs to a content block, the
// kind the loop forwards as message_update.
func (e AssistantMessageEvent) isBlockEvent() bool {
	switch e.Type {
	case StreamTextStart, StreamTextDelta, StreamTextEnd,
		StreamThinkingStart, StreamThinkingDelta, StreamThinkingEnd,
		StreamToolCallStart, StreamToolCallDelta, StreamToolCallEnd:
		return true
	}
	return false
}

// MarshalJSON implements json.Marshaler with pi's field set per type.
func (e AssistantMessageEvent) MarshalJSON() ([]byte, error) {
	// Members in the order pi-ai's providers set them (a Go map's would
	// come sorted).
	type member struct {
		name  string
		value any
	}
	ms := []member{{"type", e.Type}}
	switch e.Type {
	case StreamStart:
		ms = append(ms, member{"partial", e.Partial})
	case StreamTextStart, StreamThinkingStart, StreamToolCallStart:
		ms = append(ms, member{"contentIndex", e.ContentIndex}, member{"partial", e.Partial})
	case StreamTextDelta, StreamThinkingDelta, StreamToolCallDelta:
		ms = append(ms, member{"contentIndex", e.ContentIndex}, member{"delta", e.Delta}, member{"partial", e.Partial})
	case StreamTextEnd, StreamThinkingEnd:
		ms = append(ms, member{"contentIndex", e.ContentIndex}, member{"content", e.Content}, member{"partial", e.Partial})
	case StreamToolCallEnd:
		ms = append(ms, member{"contentIndex", e.ContentIndex}, member{"toolCall", e.ToolCall}, member{"partial", e.Partial})
	case StreamDone:
		ms = append(ms, member{"reason", e.Reason}, member{"message", e.Message})
	case StreamError:
		ms = append(ms, member{"reason", e.Reason}, member{"error", e.Error})
	}
	b := []byte{'{'}
	for i, m := range ms {
		if i > 0 {
			b = append(b, ',')
		}
		v, err := encodeJSON(m.value)
		if err != nil {
			return nil, err
		}
		b = append(append(appendJSQuoted(b, m.name), ':'), v...)
	}
	return append(b, '}'), nil
}
