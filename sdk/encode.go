package sdk

import (
	"encoding/json"
	"fmt"
	"strconv"
	"unicode/utf8"
)

// encodedResult is a Result whose details are already encoded, so that
// encoding the rest cannot fail: the bulk path encodes it only when the
// host asks for the output, as JSON or as a head and parts (docs/abi.md,
// "Output in parts").
type encodedResult struct {
	content            []Content
	details            []byte // nil: absent
	isError, terminate bool
}

// encodeDetails checks r's details by encoding them (an error is the
// plugin's mistake, reported as the call's error).
func encodeDetails(r *Result) (*encodedResult, error) {
	r = r.wire()
	e := &encodedResult{content: r.Content, isError: r.IsError, terminate: r.Terminate}
	if r.Details != nil {
		d, err := json.Marshal(r.Details)
		if err != nil {
			return nil, fmt.Errorf("sdk: the result's details: %w", err)
		}
		e.details = d
	}
	return e, nil
}

// encodeResult is r as JSON, byte for byte what json.Marshal makes of it.
func encodeResult(r *Result) ([]byte, error) {
	e, err := encodeDetails(r)
	if err != nil {
		return nil, err
	}
	return e.appendJSON(nil), nil
}

// appendJSON appends the result as JSON, byte for byte what json.Marshal
// makes of the Result, into a buffer sized for it up front: one pass over
// each text, no reflection, no growth unless the text needs escapes.
func (e *encodedResult) appendJSON(dst []byte) []byte {
	n := 64 + len(e.details)
	for _, c := range e.content {
		n += 64 + len(c.Type) + len(c.Text) + len(c.Data) + len(c.MimeType)
	}
	dst = grow(dst, n+n/16)
	return e.appendHead(dst, nil)
}

// encodeAfter is out as JSON, byte for byte what json.Marshal makes of
// it, with its content encoded in one pass as a result's is (a redacting
// hook returns the whole text).
func encodeAfter(out *AfterOutput) ([]byte, error) {
	var details []byte
	if out.Details != nil {
		d, err := json.Marshal(out.Details)
		if err != nil {
			return nil, fmt.Errorf("sdk: the hook's details: %w", err)
		}
		details = d
	}
	n := 64 + len(details)
	for _, c := range out.Content {
		n += 64 + len(c.Type) + len(c.Text) + len(c.Data) + len(c.MimeType)
	}
	dst := append(make([]byte, 0, n+n/16), '{')
	if len(out.Content) > 0 {
		e := encodedResult{content: out.Content}
		dst = e.appendContent(append(dst, `"content":`...), nil)
	}
	for _, f := range []struct {
		name string
		v    []byte
	}{{"details", details}, {"isError", boolJSON(out.IsError)}, {"terminate", boolJSON(out.Terminate)}} {
		if f.v == nil {
			continue
		}
		if len(dst) > 1 {
			dst = append(dst, ',')
		}
		dst = append(append(append(append(dst, '"'), f.name...), `":`...), f.v...)
	}
	return append(dst, '}'), nil
}

func boolJSON(b *bool) []byte {
	switch {
	case b == nil:
		return nil
	case *b:
		return []byte("true")
	}
	return []byte("false")
}

// partMin is the shortest text or data that the output in parts carries
// raw; shorter ones stay in the head, where escaping them costs less than
// a part. maxParts is the SDK's own bound, well under the host's (65536).
const (
	partMin  = 256
	maxParts = 4096
)

// head appends the head of the output in parts and returns it with the
// parts: each text or data of at least partMin bytes is left out of the
// head, which says "textPart": i or "dataPart": i instead, i being its
// index among the parts.
func (e *encodedResult) head(dst []byte) ([]byte, []string) {
	var parts []string
	return e.appendHead(dst, &parts), parts
}

// appendHead appends the JSON of the result, taking texts and data out
// as parts when parts is not nil. The field order and omissions are
// encoding/json's for Result and Content.
func (e *encodedResult) appendHead(dst []byte, parts *[]string) []byte {
	dst = e.appendContent(append(dst, `{"content":`...), parts)
	if e.details != nil {
		dst = append(dst, `,"details":`...)
		dst = append(dst, e.details...)
	}
	if e.isError {
		dst = append(dst, `,"isError":true`...)
	}
	if e.terminate {
		dst = append(dst, `,"terminate":true`...)
	}
	return append(dst, '}')
}

// appendContent appends the content blocks as a JSON array.
func (e *encodedResult) appendContent(dst []byte, parts *[]string) []byte {
	dst = append(dst, '[')
	for i, c := range e.content {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, `{"type":`...)
		dst = appendJSONString(dst, c.Type)
		dst = appendField(dst, "text", c.Text, parts)
		dst = appendField(dst, "data", c.Data, parts)
		if c.MimeType != "" {
			dst = append(dst, `,"mimeType":`...)
			dst = appendJSONString(dst, c.MimeType)
		}
		dst = append(dst, '}')
	}
	return append(dst, ']')
}

// appendField appends `,"name":"value"` for a non-empty value, or
// `,"namePart":i` with the value added to parts.
func appendField(dst []byte, name, value string, parts *[]string) []byte {
	if value == "" {
		return dst
	}
	dst = append(dst, `,"`...)
	dst = append(dst, name...)
	if parts != nil && len(value) >= partMin && len(*parts) < maxParts {
		dst = append(dst, `Part":`...)
		dst = strconv.AppendInt(dst, int64(len(*parts)), 10)
		*parts = append(*parts, value)
		return dst
	}
	dst = append(dst, `":`...)
	return appendJSONString(dst, value)
}

func grow(b []byte, n int) []byte {
	if cap(b)-len(b) >= n {
		return b
	}
	return append(make([]byte, 0, len(b)+n), b...)
}

// appendJSONString appends s as a JSON string, byte for byte as
// encoding/json does: <, > and & escaped, U+2028 and U+2029 escaped, each
// byte of invalid UTF-8 as \ufffd. Runs of plain ASCII are copied whole.
func appendJSONString(dst []byte, s string) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		b := s[i]
		if b < utf8.RuneSelf {
			if jsonPlain[b] {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch b {
			case '\\', '"':
				dst = append(dst, '\\', b)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hex[b>>4], hex[b&0xF])
			}
			i++
			start = i
			continue
		}
		c, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case c == utf8.RuneError && size == 1:
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
		case c == '\u2028' || c == '\u2029':
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hex[c&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// jsonPlain says which ASCII bytes a JSON string holds as they are.
var jsonPlain = func() (t [utf8.RuneSelf]bool) {
	for b := 0x20; b < utf8.RuneSelf; b++ {
		t[b] = b != '"' && b != '\\' && b != '<' && b != '>' && b != '&'
	}
	return t
}()
