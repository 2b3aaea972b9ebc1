package sdk

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
)

// Tool is a tool of the plugin. NewTool builds one from a typed function;
// a Tool literal with a hand-written schema works as well.
type Tool struct {
	Name        string
	Label       string
	Description string
	// Parameters is the JSON Schema of the arguments object. Empty means
	// any object.
	Parameters json.RawMessage
	// ExecutionMode is Parallel (the default) or Sequential: a sequential
	// tool makes the whole batch of calls it is in run one at a time.
	ExecutionMode string
	// Annotations, optional, are hints for clients (read-only,
	// destructive, idempotent, open-world); nil claims nothing.
	Annotations *Annotations
	// Run executes a call with arguments the host has validated against
	// Parameters. An error becomes an error result with its text.
	Run func(c *Call, args json.RawMessage) (*Result, error)
	// Prepare, optional, rewrites the raw arguments before the host
	// validates them (to accept an older shape, say).
	Prepare func(args json.RawMessage) (json.RawMessage, error)

	// schema derives Parameters when describe asks (NewTool): instances
	// that only execute never pay for reflection.
	schema func() (json.RawMessage, error)
}

// NewTool makes a tool whose arguments are the Go type A: Parameters is
// A's schema (see SchemaFor) and run gets the arguments decoded into A.
func NewTool[A any](name, description string, run func(c *Call, args A) (*Result, error)) Tool {
	t := Tool{Name: name, Description: description, schema: SchemaFor[A]}
	var zero A
	warm(&zero)
	t.Run = func(c *Call, raw json.RawMessage) (*Result, error) {
		var a A
		if err := DecodeArgs(raw, &a); err != nil {
			return nil, err
		}
		return run(c, a)
	}
	return t
}

// DecodeArgs decodes raw arguments into v, refusing fields v does not have.
func DecodeArgs(raw json.RawMessage, v any) error {
	if len(raw) == 0 {
		raw = json.RawMessage("{}")
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("arguments: %w", err)
	}
	if dec.More() {
		return errors.New("arguments: trailing data after the object")
	}
	return nil
}

// Text is a result of one text block.
func Text(s string) *Result { return &Result{Content: []Content{{Type: "text", Text: s}}} }

// Textf is a result of one formatted text block.
func Textf(format string, args ...any) *Result { return Text(fmt.Sprintf(format, args...)) }

// TextContent is a text block.
func TextContent(s string) Content { return Content{Type: "text", Text: s} }

// ImageContent is an image block of data with its MIME type.
func ImageContent(data []byte, mimeType string) Content {
	return Content{Type: "image", Data: base64.StdEncoding.EncodeToString(data), MimeType: mimeType}
}

// WithDetails sets the result's details (for the host and its UI, not the
// model) and returns the result.
func (r *Result) WithDetails(details any) *Result {
	r.Details = details
	return r
}

// Add appends content blocks and returns the result.
func (r *Result) Add(blocks ...Content) *Result {
	r.Content = append(r.Content, blocks...)
	return r
}

// Terminated marks the result as a hint to end the run after this batch
// (it ends when every result of the batch says so) and returns it.
func (r *Result) Terminated() *Result {
	r.Terminate = true
	return r
}

// wire is r with content never null.
func (r *Result) wire() *Result {
	if r == nil {
		return &Result{Content: []Content{}}
	}
	if r.Content == nil {
		c := *r
		c.Content = []Content{}
		return &c
	}
	return r
}
