package serve

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/wasmagent/wasmagent/host"
)

// decodeBody reads one JSON object from r into v: no unknown fields, no
// trailing data; errors say which field is wrong. An empty body is {}.
func decodeBody(r io.Reader, v any) error {
	data, err := io.ReadAll(r)
	if err != nil {
		var maxb *http.MaxBytesError
		if errors.As(err, &maxb) {
			return err
		}
		return &InvalidError{Msg: "reading the body: " + err.Error()}
	}
	return decodeJSON(data, v)
}

func decodeJSON(data []byte, v any) error {
	if len(bytes.TrimSpace(data)) == 0 {
		data = []byte("{}")
	}
	if t := bytes.TrimSpace(data); t[0] != '{' {
		return &InvalidError{Msg: "the body must be a JSON object"}
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var te *json.UnmarshalTypeError
		var se *json.SyntaxError
		switch {
		case errors.As(err, &te) && te.Field != "":
			return &InvalidError{Field: te.Field, Msg: fmt.Sprintf("want %s, got %s", te.Type, te.Value)}
		case errors.As(err, &se):
			return &InvalidError{Msg: fmt.Sprintf("not JSON at byte %d: %v", se.Offset, err)}
		case strings.HasPrefix(err.Error(), "json: unknown field "):
			field := strings.Trim(strings.TrimPrefix(err.Error(), "json: unknown field "), `"`)
			return &InvalidError{Field: field, Msg: "unknown field"}
		}
		return &InvalidError{Msg: "not a JSON object of the right shape: " + err.Error()}
	}
	if dec.More() {
		return &InvalidError{Msg: "more than one JSON value in the body"}
	}
	if _, err := dec.Token(); err != io.EOF {
		return &InvalidError{Msg: "trailing data after the JSON object"}
	}
	return nil
}

func decodeCreate(r io.Reader) (CreateRequest, error) {
	var req CreateRequest
	if err := decodeBody(r, &req); err != nil {
		return CreateRequest{}, err
	}
	if m := req.Model; m != nil && (m.Provider == "" || m.ModelID == "") {
		return CreateRequest{}, &InvalidError{Field: "model", Msg: `want {"provider","modelId"}, both set`}
	}
	return req, nil
}

// commandJSON is a command's body: pi's RpcCommand fields for prompt,
// steer, follow_up and abort. "type" and "id" are accepted so that an RPC
// client's JSON can be posted as it is; a type must match the route.
type commandJSON struct {
	ID                json.RawMessage `json:"id,omitempty"`
	Type              string          `json:"type,omitempty"`
	Message           *string         `json:"message,omitempty"`
	Images            []imageJSON     `json:"images,omitempty"`
	StreamingBehavior string          `json:"streamingBehavior,omitempty"`
}

// imageJSON is pi's ImageContent: {"type":"image","data","mimeType"}.
type imageJSON struct {
	Type     string `json:"type,omitempty"`
	Data     string `json:"data"`
	MimeType string `json:"mimeType"`
}

func decodeCommand(r io.Reader, typ string) (Command, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		var maxb *http.MaxBytesError
		if errors.As(err, &maxb) {
			return Command{}, err
		}
		return Command{}, &InvalidError{Msg: "reading the body: " + err.Error()}
	}
	return decodeCommandJSON(data, typ)
}

func decodeCommandJSON(data []byte, typ string) (Command, error) {
	var c commandJSON
	if err := decodeJSON(data, &c); err != nil {
		return Command{}, err
	}
	if c.Type != "" && c.Type != typ {
		return Command{}, &InvalidError{Field: "type", Msg: fmt.Sprintf("%q posted to …/%s", c.Type, typ)}
	}
	cmd := Command{Type: typ, Message: c.Message, StreamingBehavior: c.StreamingBehavior}
	for i, img := range c.Images {
		if (img.Type != "" && img.Type != "image") || img.Data == "" || img.MimeType == "" {
			return Command{}, &InvalidError{Field: fmt.Sprintf("images[%d]", i), Msg: `want {"type":"image","data":base64,"mimeType"}`}
		}
		cmd.Images = append(cmd.Images, host.ImageContent{Data: img.Data, MimeType: img.MimeType})
	}
	switch typ {
	case "abort":
		if cmd.Message != nil || len(cmd.Images) > 0 || cmd.StreamingBehavior != "" {
			return Command{}, &InvalidError{Msg: "abort takes no message, images or streamingBehavior"}
		}
		return cmd, nil
	case "prompt":
		switch cmd.StreamingBehavior {
		case "", "steer", "followUp":
		default:
			return Command{}, &InvalidError{Field: "streamingBehavior", Msg: fmt.Sprintf("%.40q is not \"steer\" or \"followUp\"", cmd.StreamingBehavior)}
		}
	default:
		if cmd.StreamingBehavior != "" {
			return Command{}, &InvalidError{Field: "streamingBehavior", Msg: "only a prompt takes it"}
		}
	}
	if cmd.Message == nil {
		return Command{}, &InvalidError{Field: "message", Msg: "missing"}
	}
	return cmd, nil
}
