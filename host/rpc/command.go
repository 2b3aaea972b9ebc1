package rpc

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/wasmagent/wasmagent/host"
)

// Command is one line of input: pi's RpcCommand, every field of every
// command type in one struct (a command uses those it needs).
type Command struct {
	ID                json.RawMessage     `json:"id,omitempty"`
	Type              string              `json:"type"`
	Message           *string             `json:"message,omitempty"`
	Images            []host.ImageContent `json:"images,omitempty"`
	StreamingBehavior string              `json:"streamingBehavior,omitempty"`
	Mode              string              `json:"mode,omitempty"`
	Level             string              `json:"level,omitempty"`
	Provider          string              `json:"provider,omitempty"`
	ModelID           string              `json:"modelId,omitempty"`
	Enabled           *bool               `json:"enabled,omitempty"`
	SessionPath       string              `json:"sessionPath,omitempty"`
	ParentSession     string              `json:"parentSession,omitempty"`
	EntryID           string              `json:"entryId,omitempty"`
	Name              *string             `json:"name,omitempty"`
	// extension_ui_response (to a confirm)
	Confirmed *bool `json:"confirmed,omitempty"`
	Cancelled *bool `json:"cancelled,omitempty"`

	// images as the client wrote them: pi puts the client's objects in
	// the message as they are (their members' order, members of their
	// own)
	images []json.RawMessage
}

// DecodeCommand decodes one line (without its LF; a trailing CR is
// ignored). The error says what is wrong; the command's id, when one could
// be read, comes back even then, so the error response can carry it.
func DecodeCommand(line []byte) (Command, error) {
	line = bytes.TrimSuffix(line, []byte{'\r'})
	var c Command
	if len(bytes.TrimSpace(line)) == 0 {
		return c, errors.New("empty line")
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(line, &obj); err != nil {
		return c, fmt.Errorf("not a JSON object: %v", err)
	}
	if id, ok := obj["id"]; ok && validID(id) {
		c.ID = id
	}
	if err := json.Unmarshal(line, &c); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field != "" {
			return c, fmt.Errorf("field %q: want %s, got %s", te.Field, te.Type, te.Value)
		}
		return c, err
	}
	if !validID(c.ID) {
		c.ID = nil
		return c, errors.New(`field "id": want a string or a number`)
	}
	if c.Type == "" {
		return c, errors.New(`missing "type"`)
	}
	for i, img := range c.Images {
		if img.Data == "" || img.MimeType == "" {
			return c, fmt.Errorf("images[%d]: want {\"type\":\"image\",\"data\":base64,\"mimeType\"}", i)
		}
	}
	if len(c.Images) > 0 {
		json.Unmarshal(obj["images"], &c.images) // an array of objects: decoded above
	}
	return c, nil
}

func validID(id json.RawMessage) bool {
	if len(id) == 0 {
		return true
	}
	var v any
	if json.Unmarshal(id, &v) != nil {
		return false
	}
	switch v.(type) {
	case string, float64:
		return true
	}
	return false
}
