package scripted

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/wasmagent/wasmagent/host"
)

// Script is the decoded form of a script file.
type Script struct {
	Model       ModelInfo `json:"model"`
	ChunkTokens int       `json:"chunkTokens"`
	Turns       []Turn    `json:"turns"`
}

// ModelInfo names the model in the messages it produces.
type ModelInfo struct {
	API      string `json:"api"`
	Provider string `json:"provider"`
	ID       string `json:"id"`
}

// Turn is one scripted response.
type Turn struct {
	Content      host.Contents   `json:"-"`
	StopReason   host.StopReason `json:"stopReason,omitempty"`
	ErrorMessage string          `json:"errorMessage,omitempty"`
	ResponseID   string          `json:"responseId,omitempty"`
	Usage        *host.Usage     `json:"usage,omitempty"`
	Throw        string          `json:"throw,omitempty"`
	DelayMs      int             `json:"delayMs,omitempty"`
	ChunkDelayMs int             `json:"chunkDelayMs,omitempty"`
}

// UnmarshalJSON decodes a turn strictly; content blocks of type toolCall may
// carry "rawArguments" instead of "arguments".
func (t *Turn) UnmarshalJSON(data []byte) error {
	type plain Turn
	var aux struct {
		plain
		Content json.RawMessage `json:"content"`
	}
	if err := strictUnmarshal(data, &aux); err != nil {
		return err
	}
	*t = Turn(aux.plain)
	if t.StopReason != "" && !t.StopReason.Valid() {
		return fmt.Errorf("stopReason %q is not one of stop, length, toolUse, error, aborted", t.StopReason)
	}
	if t.DelayMs < 0 || t.ChunkDelayMs < 0 {
		return fmt.Errorf("delays must not be negative")
	}
	content, err := decodeContent(aux.Content)
	if err != nil {
		return err
	}
	t.Content = content
	return nil
}

func decodeContent(raw json.RawMessage) (host.Contents, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return host.Contents{}, nil
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return host.Text(s), nil
	}
	var blocks []json.RawMessage
	if err := json.Unmarshal(raw, &blocks); err != nil {
		return nil, fmt.Errorf("content: want a string or an array of blocks")
	}
	out := host.Contents{}
	for i, b := range blocks {
		c, err := decodeBlock(b)
		if err != nil {
			return nil, fmt.Errorf("content[%d]: %w", i, err)
		}
		out = append(out, c)
	}
	return out, nil
}

// blockFields are the fields each block type may carry besides "type":
// pi-ai's TextContent, ThinkingContent and ToolCall (plus rawArguments).
// A field of another type's block is an error, not ignored.
var blockFields = map[string][]string{
	"text":     {"text", "textSignature"},
	"thinking": {"thinking", "thinkingSignature", "redacted"},
	"toolCall": {"id", "name", "arguments", "rawArguments", "thoughtSignature"},
}

func decodeBlock(raw json.RawMessage) (host.Content, error) {
	var b struct {
		Type              string          `json:"type"`
		Text              *string         `json:"text"`
		TextSignature     *string         `json:"textSignature"`
		Thinking          *string         `json:"thinking"`
		ThinkingSignature *string         `json:"thinkingSignature"`
		Redacted          *bool           `json:"redacted"`
		ID                *string         `json:"id"`
		Name              *string         `json:"name"`
		Arguments         json.RawMessage `json:"arguments"`
		RawArguments      *string         `json:"rawArguments"`
		ThoughtSignature  *string         `json:"thoughtSignature"`
	}
	if err := strictUnmarshal(raw, &b); err != nil {
		return nil, err
	}
	allowed, ok := blockFields[b.Type]
	if !ok {
		return nil, fmt.Errorf("unknown block type %q (want text, thinking or toolCall)", b.Type)
	}
	present := map[string]bool{
		"text": b.Text != nil, "textSignature": b.TextSignature != nil,
		"thinking": b.Thinking != nil, "thinkingSignature": b.ThinkingSignature != nil, "redacted": b.Redacted != nil,
		"id": b.ID != nil, "name": b.Name != nil, "arguments": b.Arguments != nil, "rawArguments": b.RawArguments != nil,
		"thoughtSignature": b.ThoughtSignature != nil,
	}
	for _, field := range []string{"text", "textSignature", "thinking", "thinkingSignature", "redacted", "id", "name", "arguments", "rawArguments", "thoughtSignature"} {
		if present[field] && !slices.Contains(allowed, field) {
			return nil, fmt.Errorf("a %s block has no %q (it takes %s)", b.Type, field, strings.Join(allowed, ", "))
		}
	}
	switch b.Type {
	case "text":
		if b.Text == nil {
			return nil, fmt.Errorf("text block needs \"text\"")
		}
		return host.TextContent{Text: *b.Text, TextSignature: deref(b.TextSignature)}, nil
	case "thinking":
		if b.Thinking == nil {
			return nil, fmt.Errorf("thinking block needs \"thinking\"")
		}
		return host.ThinkingContent{Thinking: *b.Thinking, ThinkingSignature: deref(b.ThinkingSignature), Redacted: b.Redacted != nil && *b.Redacted}, nil
	}
	if deref(b.ID) == "" || deref(b.Name) == "" {
		return nil, fmt.Errorf("toolCall block needs \"id\" and \"name\"")
	}
	args := b.Arguments
	switch {
	case b.RawArguments != nil && args != nil:
		return nil, fmt.Errorf("toolCall block has both \"arguments\" and \"rawArguments\"")
	case b.RawArguments != nil:
		args = json.RawMessage(*b.RawArguments)
	case args == nil:
		args = json.RawMessage(`{}`)
	default:
		var c bytes.Buffer
		if err := json.Compact(&c, args); err != nil {
			return nil, err
		}
		args = c.Bytes()
	}
	return host.ToolCall{ID: *b.ID, Name: *b.Name, Arguments: args, ThoughtSignature: deref(b.ThoughtSignature)}, nil
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// Parse decodes a script. Unknown fields are errors.
func Parse(data []byte) (*Script, error) {
	var s Script
	if err := strictUnmarshal(data, &s); err != nil {
		return nil, fmt.Errorf("script: %w", err)
	}
	if s.ChunkTokens < 0 {
		return nil, fmt.Errorf("script: chunkTokens must not be negative")
	}
	return &s, nil
}

// Load reads and decodes a script file; errors name the file.
func Load(path string) (*Script, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	s, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return s, nil
}

func strictUnmarshal(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return fmt.Errorf("data after the JSON value")
	}
	return nil
}
