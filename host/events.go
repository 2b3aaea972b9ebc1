package host

import (
	"encoding/json"
)

// Event is one of the ten agent events of pi-agent-core 0.73.1. The set is
// closed: the types below are all there is. Each encodes to JSON with pi's
// "type" name and fields, so a stream of ours can be diffed against pi's.
type Event interface {
	// EventType returns pi's name for the event, e.g. "turn_end".
	EventType() string
	isEvent()
}

// AgentStartEvent opens a run.
type AgentStartEvent struct{}

// AgentEndEvent closes a run; Messages are the messages the run added.
type AgentEndEvent struct {
	Messages []Message `json:"messages"`
}

// TurnStartEvent opens a turn: one model response and its tool calls.
type TurnStartEvent struct{}

// TurnEndEvent closes a turn.
type TurnEndEvent struct {
	Message     *AssistantMessage    `json:"message"`
	ToolResults []*ToolResultMessage `json:"toolResults"`
}

// MessageStartEvent announces a message: a prompt, an injected message, the
// model's partial response or a tool result.
type MessageStartEvent struct {
	Message Message `json:"message"`
}

// MessageUpdateEvent carries one streaming step of the assistant message.
type MessageUpdateEvent struct {
	AssistantMessageEvent AssistantMessageEvent `json:"assistantMessageEvent"`
	Message               *AssistantMessage     `json:"message"`
}

// MessageEndEvent delivers a message in its final form.
type MessageEndEvent struct {
	Message Message `json:"message"`
}

// ToolExecutionStartEvent announces a tool call; Args are the raw arguments.
type ToolExecutionStartEvent struct {
	ToolCallID string          `json:"toolCallId"`
	ToolName   string          `json:"toolName"`
	Args       json.RawMessage `json:"args"`
}

// ToolExecutionUpdateEvent carries a partial result sent by a running tool.
type ToolExecutionUpdateEvent struct {
	ToolCallID    string          `json:"toolCallId"`
	ToolName      string          `json:"toolName"`
	Args          json.RawMessage `json:"args"`
	PartialResult any             `json:"partialResult"`
}

// ToolExecutionEndEvent delivers a tool call's final result.
type ToolExecutionEndEvent struct {
	ToolCallID string     `json:"toolCallId"`
	ToolName   string     `json:"toolName"`
	Result     ToolResult `json:"result"`
	IsError    bool       `json:"isError"`
}

func (AgentStartEvent) isEvent()          {}
func (AgentEndEvent) isEvent()            {}
func (TurnStartEvent) isEvent()           {}
func (TurnEndEvent) isEvent()             {}
func (MessageStartEvent) isEvent()        {}
func (MessageUpdateEvent) isEvent()       {}
func (MessageEndEvent) isEvent()          {}
func (ToolExecutionStartEvent) isEvent()  {}
func (ToolExecutionUpdateEvent) isEvent() {}
func (ToolExecutionEndEvent) isEvent()    {}

// EventType implements Event.
func (AgentStartEvent) EventType() string { return "agent_start" }

// EventType implements Event.
func (AgentEndEvent) EventType() string { return "agent_end" }

// EventType implements Event.
func (TurnStartEvent) EventType() string { return "turn_start" }

// EventType implements Event.
func (TurnEndEvent) EventType() string { return "turn_end" }

// EventType implements Event.
func (MessageStartEvent) EventType() string { return "message_start" }

// EventType implements Event.
func (MessageUpdateEvent) EventType() string { return "message_update" }

// EventType implements Event.
func (MessageEndEvent) EventType() string { return "message_end" }

// EventType implements Event.
func (ToolExecutionStartEvent) EventType() string { return "tool_execution_start" }

// EventType implements Event.
func (ToolExecutionUpdateEvent) EventType() string { return "tool_execution_update" }

// EventType implements Event.
func (ToolExecutionEndEvent) EventType() string { return "tool_execution_end" }

// MarshalEvent encodes e as one JSON object with a leading "type" field,
// in the bytes pi's JSON.stringify writes (JSONStringify).
func MarshalEvent(e Event) ([]byte, error) {
	b, err := marshalEvent(e)
	if err != nil {
		return nil, err
	}
	return JSONStringify(b)
}

func marshalEvent(e Event) ([]byte, error) {
	switch e := e.(type) {
	case AgentStartEvent, TurnStartEvent:
		return []byte(`{"type":"` + e.EventType() + `"}`), nil
	case AgentEndEvent:
		if e.Messages == nil {
			e.Messages = []Message{}
		}
		return withType(e.EventType(), e)
	case TurnEndEvent:
		if e.ToolResults == nil {
			e.ToolResults = []*ToolResultMessage{}
		}
		return withType(e.EventType(), e)
	case ToolExecutionStartEvent:
		e.Args = ArgumentsJSON(e.Args)
		return withType(e.EventType(), e)
	case ToolExecutionUpdateEvent:
		e.Args = ArgumentsJSON(e.Args)
		return withType(e.EventType(), e)
	default:
		return withType(e.EventType(), e)
	}
}

// withType marshals v and inserts "type":name as its first field.
func withType(name string, v any) ([]byte, error) {
	body, err := encodeJSON(v)
	if err != nil {
		return nil, err
	}
	out := make([]byte, 0, len(body)+len(name)+10)
	out = append(out, `{"type":"`...)
	out = append(out, name...)
	out = append(out, '"')
	if len(body) > 2 {
		out = append(out, ',')
	}
	return append(out, body[1:]...), nil
}
