package host

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/wasmagent/wasmagent/host/internal/jsonread"
)

// Content is one block of a message's content: [TextContent], [ImageContent],
// [ThinkingContent], [ToolCall], or [UnknownContent] for a block given as
// JSON that is none of these. The set is closed; its JSON form carries a
// "type" field with pi's names ("text", "image", "thinking", "toolCall").
type Content interface {
	contentType() string
}

// TextContent is plain text.
type TextContent struct {
	Text          string `json:"text"`
	TextSignature string `json:"textSignature,omitempty"`
}

// ImageContent is a base64-encoded image.
type ImageContent struct {
	Data     string `json:"data"`
	MimeType string `json:"mimeType"`
}

// ThinkingContent is reasoning text streamed by the model.
type ThinkingContent struct {
	Thinking          string `json:"thinking"`
	ThinkingSignature string `json:"thinkingSignature,omitempty"`
	Redacted          bool   `json:"redacted,omitempty"`
}

// ToolCall is the model's request to run a tool. Arguments are the raw JSON
// the model produced; they are validated only when the call is prepared, so
// they may be anything, including text that is not JSON at all.
type ToolCall struct {
	ID               string          `json:"id"`
	Name             string          `json:"name"`
	Arguments        json.RawMessage `json:"arguments"`
	ThoughtSignature string          `json:"thoughtSignature,omitempty"`
}

// UnknownContent is a block given as JSON (a session file, a client's
// message) that the other types cannot hold: a type the host does not
// know (a newer pi's, an extension's), a known type whose members are not
// of that type's kinds (a text that is a number), or a value that is not
// an object at all. pi keeps such a block as it was given, in its
// transcript, events, session file and RPC answers; so does wasmagent
// (RATIONALE.md "Why is a content block of an unknown type kept?"). No
// model adapter sends it, and a reader of content skips it.
type UnknownContent struct {
	// Type is the block's "type" member when it is a string, else "".
	Type string
	// Raw is the block as given: compact, valid UTF-8 JSON.
	Raw json.RawMessage
}

func (TextContent) contentType() string      { return "text" }
func (ImageContent) contentType() string     { return "image" }
func (ThinkingContent) contentType() string  { return "thinking" }
func (ToolCall) contentType() string         { return "toolCall" }
func (c UnknownContent) contentType() string { return c.Type }

// MarshalJSON implements json.Marshaler: the block as given (null when
// Raw is empty).
func (c UnknownContent) MarshalJSON() ([]byte, error) {
	if len(c.Raw) == 0 {
		return []byte("null"), nil
	}
	return c.Raw, nil
}

// Text returns a content list holding one text block.
func Text(s string) Contents { return Contents{TextContent{Text: s}} }

// MarshalJSON implements json.Marshaler.
func (c TextContent) MarshalJSON() ([]byte, error) {
	type plain TextContent
	return encodeJSON(struct {
		Type string `json:"type"`
		plain
	}{"text", plain(c)})
}

// MarshalJSON implements json.Marshaler.
func (c ImageContent) MarshalJSON() ([]byte, error) {
	type plain ImageContent
	return encodeJSON(struct {
		Type string `json:"type"`
		plain
	}{"image", plain(c)})
}

// MarshalJSON implements json.Marshaler.
func (c ThinkingContent) MarshalJSON() ([]byte, error) {
	type plain ThinkingContent
	return encodeJSON(struct {
		Type string `json:"type"`
		plain
	}{"thinking", plain(c)})
}

// MarshalJSON implements json.Marshaler. Arguments that are not valid JSON
// (a model may send anything) are written as a JSON string, so that an event
// carrying them can always be encoded.
func (c ToolCall) MarshalJSON() ([]byte, error) {
	type plain ToolCall
	p := plain(c)
	p.Arguments = ArgumentsJSON(c.Arguments)
	return encodeJSON(struct {
		Type string `json:"type"`
		plain
	}{"toolCall", p})
}

// ArgumentsJSON returns raw as it is when it is valid JSON nested at most
// MaxKeptArgumentDepth deep, `{}` when it is empty, and otherwise raw
// encoded as a JSON string.
func ArgumentsJSON(raw json.RawMessage) json.RawMessage {
	if len(bytes.TrimSpace(raw)) == 0 {
		return json.RawMessage(`{}`)
	}
	if json.Valid(raw) && !jsonread.NestedOver(raw, MaxKeptArgumentDepth) {
		return raw
	}
	s, _ := encodeJSON(string(raw))
	return s
}

// MaxKeptArgumentDepth bounds how deep a tool call's arguments may nest
// and still be written as the JSON value they are (ArgumentsJSON); deeper
// ones are written as the string of their text, as arguments that are not
// JSON are. Every line the host writes holds them a few levels down (a
// session entry, an event, agent_end's list of messages), and readers
// refuse deep documents: encoding/json past 10,000 levels, Python's json
// near 1,000. On the old main a model's arguments nested 9,998 deep were
// valid JSON, kept as they were, and their session line was dropped at
// the next load. Such arguments never run: a call's arguments are
// checked to nest at most MaxArgumentDepth deep.
const MaxKeptArgumentDepth = 512

// Contents is a list of content blocks. It encodes nil as [] and decodes
// both pi's array form and the plain-string shorthand of user messages.
type Contents []Content

// MarshalJSON implements json.Marshaler.
func (cs Contents) MarshalJSON() ([]byte, error) {
	if cs == nil {
		return []byte("[]"), nil
	}
	return encodeJSON([]Content(cs))
}

// UnmarshalJSON implements json.Unmarshaler.
func (cs *Contents) UnmarshalJSON(data []byte) error {
	if string(data) == "null" {
		*cs = nil
		return nil
	}
	var s string
	if err := json.Unmarshal(data, &s); err == nil {
		*cs = Contents{TextContent{Text: s}}
		return nil
	}
	var raws []json.RawMessage
	if err := json.Unmarshal(data, &raws); err != nil {
		return fmt.Errorf("content: want an array of blocks or a string: %w", err)
	}
	out := make(Contents, 0, len(raws))
	for _, raw := range raws {
		out = append(out, decodeContent(raw))
	}
	*cs = out
	return nil
}

// decodeContent decodes one block of a content array; a block that is
// none of the known types, or does not fit its type, is an
// [UnknownContent].
func decodeContent(raw json.RawMessage) Content {
	var head struct {
		Type string `json:"type"`
	}
	if len(raw) == 0 || raw[0] != '{' || json.Unmarshal(raw, &head) != nil {
		return unknownContent(head.Type, raw)
	}
	var c Content
	var err error
	switch head.Type {
	case "text":
		var b TextContent
		err, c = json.Unmarshal(raw, &b), b
	case "image":
		var b ImageContent
		err, c = json.Unmarshal(raw, &b), b
	case "thinking":
		var b ThinkingContent
		err, c = json.Unmarshal(raw, &b), b
	case "toolCall":
		var b ToolCall
		err, c = json.Unmarshal(raw, &b), b
	default:
		err = errUnknownBlock
	}
	if err != nil {
		return unknownContent(head.Type, raw)
	}
	return c
}

var errUnknownBlock = errors.New("unknown content type")

func unknownContent(typ string, raw json.RawMessage) UnknownContent {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return UnknownContent{Type: typ, Raw: json.RawMessage("null")}
	}
	return UnknownContent{Type: typ, Raw: validUTF8(b.Bytes())}
}

// ToolCalls returns the tool-call blocks of cs in content order.
func (cs Contents) ToolCalls() []ToolCall {
	var calls []ToolCall
	for _, c := range cs {
		if tc, ok := c.(ToolCall); ok {
			calls = append(calls, tc)
		}
	}
	return calls
}

// TextOf concatenates the text blocks of cs.
func (cs Contents) TextOf() string {
	var b bytes.Buffer
	for _, c := range cs {
		if t, ok := c.(TextContent); ok {
			b.WriteString(t.Text)
		}
	}
	return b.String()
}
