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
	m := map[string]any{"type": e.Type}
	switch e.Type {
	case StreamStart:
		m["partial"] = e.Partial
	case StreamTextStart, StreamThinkingStart, StreamToolCallStart:
		m["contentIndex"] = e.ContentIndex
		m["partial"] = e.Partial
	case StreamTextDelta, StreamThinkingDelta, StreamToolCallDelta:
		m["contentIndex"] = e.ContentIndex
		m["delta"] = e.Delta
		m["partial"] = e.Partial
	case StreamTextEnd, StreamThinkingEnd:
		m["contentIndex"] = e.ContentIndex
		m["content"] = e.Content
		m["partial"] = e.Partial
	case StreamToolCallEnd:
		m["contentIndex"] = e.ContentIndex
		m["toolCall"] = e.ToolCall
		m["partial"] = e.Partial
	case StreamDone:
		m["reason"] = e.Reason
		m["message"] = e.Message
	case StreamError:
		m["reason"] = e.Reason
		m["error"] = e.Error
	}
	return encodeJSON(m)
}
