package host

import (
	"encoding/json"
	"fmt"
)

// Message is one entry of a transcript. The three roles the model sees are
// [*UserMessage], [*AssistantMessage] and [*ToolResultMessage]; any other
// type implementing Message is a custom message (pi's CustomAgentMessages),
// kept in the transcript and dropped by [DefaultConvertToLLM].
type Message interface {
	MessageRole() string
}

// Roles of the built-in messages.
const (
	RoleUser       = "user"
	RoleAssistant  = "assistant"
	RoleToolResult = "toolResult"
)

// StopReason says why the model stopped.
type StopReason string

// The stop reasons of pi-ai.
const (
	StopReasonStop    StopReason = "stop"
	StopReasonLength  StopReason = "length"
	StopReasonToolUse StopReason = "toolUse"
	StopReasonError   StopReason = "error"
	StopReasonAborted StopReason = "aborted"
)

// Valid reports whether r is one of the five stop reasons.
func (r StopReason) Valid() bool {
	switch r {
	case StopReasonStop, StopReasonLength, StopReasonToolUse, StopReasonError, StopReasonAborted:
		return true
	}
	return false
}

// UserMessage is a prompt, steering or follow-up message.
//
// A message decoded from JSON (DecodeMessage, json.Unmarshal) encodes
// back to that JSON, as pi passes a message on untouched: a content given
// as a string stays a string, members the type does not know stay, and
// a member absent stays absent, as long as its fields hold what was
// decoded; a field changed since is written as it is now, and the other
// members as they were. The same holds for the other messages.
type UserMessage struct {
	Content   Contents `json:"content"`
	Timestamp int64    `json:"timestamp"`

	src *source // the JSON decoded, where the fields do not say it all
}

// Cost is the price of a response, in dollars.
type Cost struct {
	Input      float64 `json:"input"`
	Output     float64 `json:"output"`
	CacheRead  float64 `json:"cacheRead"`
	CacheWrite float64 `json:"cacheWrite"`
	Total      float64 `json:"total"`
}

// Usage counts the tokens of a response.
type Usage struct {
	Input       int  `json:"input"`
	Output      int  `json:"output"`
	CacheRead   int  `json:"cacheRead"`
	CacheWrite  int  `json:"cacheWrite"`
	TotalTokens int  `json:"totalTokens"`
	Cost        Cost `json:"cost"`
}

// AssistantMessage is one response of the model.
type AssistantMessage struct {
	Content       Contents   `json:"content"`
	API           string     `json:"api"`
	Provider      string     `json:"provider"`
	Model         string     `json:"model"`
	ResponseModel string     `json:"responseModel,omitempty"`
	ResponseID    string     `json:"responseId,omitempty"`
	Usage         Usage      `json:"usage"`
	StopReason    StopReason `json:"stopReason"`
	ErrorMessage  string     `json:"errorMessage,omitempty"`
	Timestamp     int64      `json:"timestamp"`

	order MemberOrder
	src   *source
}

// MemberOrder is where an assistant message writes the members a
// provider may set after it made the message (responseId,
// responseModel, errorMessage): pi writes an object's members in the
// order its code set them, and its providers make their messages in
// one order or the other.
type MemberOrder int

const (
	// OrderLate writes them after the timestamp, as pi-ai's streaming
	// providers (openai-completions) add them while the answer streams.
	OrderLate MemberOrder = iota
	// OrderMade writes them before the timestamp, as pi-ai's faux
	// provider and pi-agent-core's message for a failed run make them.
	OrderMade
)

// SetOrder sets where m writes the members of o (MemberOrder).
func (m *AssistantMessage) SetOrder(o MemberOrder) { m.order = o }

// ToolResultMessage carries a tool's result back to the model.
type ToolResultMessage struct {
	ToolCallID string   `json:"toolCallId"`
	ToolName   string   `json:"toolName"`
	Content    Contents `json:"content"`
	Details    any      `json:"details,omitempty"`
	IsError    bool     `json:"isError"`
	Timestamp  int64    `json:"timestamp"`

	src *source
}

// CustomMessage is a message of a role the host does not know, kept as the
// raw JSON object it was decoded from.
type CustomMessage struct {
	Role string
	Raw  json.RawMessage
}

// MessageRole implements Message.
func (*UserMessage) MessageRole() string { return RoleUser }

// MessageRole implements Message.
func (*AssistantMessage) MessageRole() string { return RoleAssistant }

// MessageRole implements Message.
func (*ToolResultMessage) MessageRole() string { return RoleToolResult }

// MessageRole implements Message.
func (m *CustomMessage) MessageRole() string { return m.Role }

var (
	_ Message = (*UserMessage)(nil)
	_ Message = (*AssistantMessage)(nil)
	_ Message = (*ToolResultMessage)(nil)
	_ Message = (*CustomMessage)(nil)
)

// MarshalJSON implements json.Marshaler.
func (m *UserMessage) MarshalJSON() ([]byte, error) {
	b, err := m.fieldsJSON()
	if err != nil || m.src == nil {
		return b, err
	}
	return m.src.encode(b)
}

func (m *UserMessage) fieldsJSON() ([]byte, error) {
	type plain UserMessage
	return encodeJSON(struct {
		Role string `json:"role"`
		*plain
	}{RoleUser, (*plain)(m)})
}

// UnmarshalJSON implements json.Unmarshaler.
func (m *UserMessage) UnmarshalJSON(data []byte) error {
	type plain UserMessage
	*m = UserMessage{}
	src, err := decodeKeeping(data, (*plain)(m), m.fieldsJSON)
	m.src = src
	return err
}

// MarshalJSON implements json.Marshaler.
func (m *AssistantMessage) MarshalJSON() ([]byte, error) {
	b, err := m.fieldsJSON()
	if err != nil || m.src == nil {
		return b, err
	}
	return m.src.encode(b)
}

func (m *AssistantMessage) fieldsJSON() ([]byte, error) {
	if m.order == OrderMade {
		return encodeJSON(assistantMade{RoleAssistant, m.Content, m.API, m.Provider, m.Model, m.Usage, m.StopReason,
			m.ErrorMessage, m.ResponseID, m.ResponseModel, m.Timestamp})
	}
	return encodeJSON(assistantLate{RoleAssistant, m.Content, m.API, m.Provider, m.Model, m.Usage, m.StopReason,
		m.Timestamp, m.ResponseID, m.ResponseModel, m.ErrorMessage})
}

// assistantLate and assistantMade are an assistant message's JSON in
// each MemberOrder.
type assistantLate struct {
	Role          string     `json:"role"`
	Content       Contents   `json:"content"`
	API           string     `json:"api"`
	Provider      string     `json:"provider"`
	Model         string     `json:"model"`
	Usage         Usage      `json:"usage"`
	StopReason    StopReason `json:"stopReason"`
	Timestamp     int64      `json:"timestamp"`
	ResponseID    string     `json:"responseId,omitempty"`
	ResponseModel string     `json:"responseModel,omitempty"`
	ErrorMessage  string     `json:"errorMessage,omitempty"`
}

type assistantMade struct {
	Role          string     `json:"role"`
	Content       Contents   `json:"content"`
	API           string     `json:"api"`
	Provider      string     `json:"provider"`
	Model         string     `json:"model"`
	Usage         Usage      `json:"usage"`
	StopReason    StopReason `json:"stopReason"`
	ErrorMessage  string     `json:"errorMessage,omitempty"`
	ResponseID    string     `json:"responseId,omitempty"`
	ResponseModel string     `json:"responseModel,omitempty"`
	Timestamp     int64      `json:"timestamp"`
}

// UnmarshalJSON implements json.Unmarshaler.
func (m *AssistantMessage) UnmarshalJSON(data []byte) error {
	type plain AssistantMessage
	*m = AssistantMessage{}
	src, err := decodeKeeping(data, (*plain)(m), m.fieldsJSON)
	m.src = src
	return err
}

// MarshalJSON implements json.Marshaler.
func (m *ToolResultMessage) MarshalJSON() ([]byte, error) {
	b, err := m.fieldsJSON()
	if err != nil || m.src == nil {
		return b, err
	}
	return m.src.encode(b)
}

func (m *ToolResultMessage) fieldsJSON() ([]byte, error) {
	type plain ToolResultMessage
	return encodeJSON(struct {
		Role string `json:"role"`
		*plain
	}{RoleToolResult, (*plain)(m)})
}

// UnmarshalJSON implements json.Unmarshaler.
func (m *ToolResultMessage) UnmarshalJSON(data []byte) error {
	type plain ToolResultMessage
	*m = ToolResultMessage{}
	src, err := decodeKeeping(data, (*plain)(m), m.fieldsJSON)
	m.src = src
	return err
}

// MarshalJSON implements json.Marshaler.
func (m *CustomMessage) MarshalJSON() ([]byte, error) {
	if len(m.Raw) == 0 {
		return encodeJSON(map[string]string{"role": m.Role})
	}
	return m.Raw, nil
}

// DecodeMessage decodes one message from its JSON form; an unknown role
// gives a [*CustomMessage].
func DecodeMessage(data []byte) (Message, error) {
	if m, ok := decodeMessageFast(data); ok {
		return m, nil
	}
	return decodeMessageJSON(data)
}

// decodeMessageJSON is DecodeMessage by encoding/json, for any input.
func decodeMessageJSON(data []byte) (Message, error) {
	var head struct {
		Role string `json:"role"`
	}
	if err := json.Unmarshal(exactNames(data), &head); err != nil {
		return nil, fmt.Errorf("message: %w", err)
	}
	var m Message
	switch head.Role {
	case RoleUser:
		m = new(UserMessage)
	case RoleAssistant:
		m = new(AssistantMessage)
	case RoleToolResult:
		m = new(ToolResultMessage)
	case "":
		return nil, fmt.Errorf("message: missing role")
	default:
		return &CustomMessage{Role: head.Role, Raw: append(json.RawMessage(nil), data...)}, nil
	}
	if err := json.Unmarshal(data, m); err != nil {
		return nil, fmt.Errorf("%s message: %w", head.Role, err)
	}
	return m, nil
}

// DefaultConvertToLLM keeps the user, assistant and tool-result messages and
// drops every custom message, as pi's Agent does by default.
func DefaultConvertToLLM(messages []Message) []Message {
	out := make([]Message, 0, len(messages))
	for _, m := range messages {
		switch m.MessageRole() {
		case RoleUser, RoleAssistant, RoleToolResult:
			out = append(out, m)
		}
	}
	return out
}

// Clone returns a copy of m whose content list can be changed without
// touching m's.
func (m *AssistantMessage) Clone() *AssistantMessage {
	c := *m
	c.Content = append(Contents{}, m.Content...)
	return &c
}
