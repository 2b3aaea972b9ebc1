package cli

import (
	"bytes"
	"encoding/json"
	"io"
)

// marshalJSON is json.Marshal without HTML escaping: what we print is read
// by people and programs, never pasted into HTML, so "<", ">" and "&" stay
// as they are. indent is "" for one line.
func marshalJSON(v any, indent string) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", indent)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}

// printJSON writes v, indented, and a newline.
func printJSON(w io.Writer, v any) error {
	b, err := marshalJSON(v, "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}
