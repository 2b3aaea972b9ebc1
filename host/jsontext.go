package host

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"unicode/utf8"
)

// MaxArgumentDepth bounds the nesting of tool-call arguments.
const MaxArgumentDepth = 128

// decodeOrdered decodes one JSON value the way the loop accepts tool-call
// arguments: valid UTF-8, no lone surrogate escapes, no duplicate object
// keys, no nesting deeper than MaxArgumentDepth, numbers that fit a float64,
// nothing after the value. Numbers stay json.Number, so no precision is lost
// (but for numbers too long or too far out for exact arithmetic: boundedNumber).
// It also returns the order of every object's keys, for encodeOrdered.
func decodeOrdered(raw []byte) (any, *keyOrder, error) {
	if !utf8.Valid(raw) {
		return nil, nil, errors.New("arguments are not valid UTF-8")
	}
	if err := checkSurrogates(raw); err != nil {
		return nil, nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	v, order, err := decodeValue(dec, 0)
	if err == io.EOF {
		err = errors.New("unexpected end of JSON input")
	}
	if err != nil {
		return nil, nil, fmt.Errorf("arguments are not valid JSON: %w", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, nil, errors.New("arguments are not valid JSON: data after the top-level value")
	}
	return v, order, nil
}

func decodeValue(dec *json.Decoder, depth int) (any, *keyOrder, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		if depth >= MaxArgumentDepth {
			return nil, nil, fmt.Errorf("nested deeper than %d levels", MaxArgumentDepth)
		}
		if t == '{' {
			return decodeObject(dec, depth+1)
		}
		if t == '[' {
			return decodeArray(dec, depth+1)
		}
		return nil, nil, fmt.Errorf("unexpected %q", t)
	case json.Number:
		n, ok := boundedNumber(t)
		if _, err := strconv.ParseFloat(string(t), 64); err != nil || !ok {
			return nil, nil, fmt.Errorf("number %.40s does not fit a 64-bit float", t)
		}
		return n, nil, nil
	default:
		return t, nil, nil
	}
}

func decodeObject(dec *json.Decoder, depth int) (any, *keyOrder, error) {
	obj := map[string]any{}
	order := &keyOrder{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, nil, err
		}
		key, _ := tok.(string)
		if _, dup := obj[key]; dup {
			return nil, nil, fmt.Errorf("duplicate key %q", key)
		}
		v, sub, err := decodeValue(dec, depth)
		if err != nil {
			return nil, nil, err
		}
		obj[key] = v
		order.keys = append(order.keys, key)
		order.sub = append(order.sub, sub)
	}
	_, err := dec.Token() // '}'
	return obj, order, err
}

func decodeArray(dec *json.Decoder, depth int) (any, *keyOrder, error) {
	arr := []any{}
	order := &keyOrder{}
	for dec.More() {
		v, sub, err := decodeValue(dec, depth)
		if err != nil {
			return nil, nil, err
		}
		arr = append(arr, v)
		order.sub = append(order.sub, sub)
	}
	_, err := dec.Token() // ']'
	return arr, order, err
}

// checkSurrogates refuses \u escapes that name half of a surrogate pair
// without the other half; Go's decoder would silently turn them into U+FFFD.
// Backslashes occur only inside strings in JSON, so no string state is kept.
func checkSurrogates(raw []byte) error {
	for i := 0; i < len(raw); i++ {
		if raw[i] != '\\' || i+1 >= len(raw) {
			continue
		}
		if raw[i+1] != 'u' {
			i++
			continue
		}
		r, ok := hex4(raw, i+2)
		if !ok {
			return nil // malformed escape: the decoder reports it
		}
		switch {
		case r >= 0xDC00 && r <= 0xDFFF:
			return fmt.Errorf("arguments contain a lone surrogate \\u%04x", r)
		case r >= 0xD800 && r <= 0xDBFF:
			lo, ok := hex4(raw, i+8)
			if i+7 >= len(raw) || raw[i+6] != '\\' || raw[i+7] != 'u' || !ok || lo < 0xDC00 || lo > 0xDFFF {
				return fmt.Errorf("arguments contain a lone surrogate \\u%04x", r)
			}
			i += 11
		default:
			i += 5
		}
	}
	return nil
}

func hex4(b []byte, at int) (rune, bool) {
	if at+4 > len(b) {
		return 0, false
	}
	n, err := strconv.ParseUint(string(b[at:at+4]), 16, 16)
	return rune(n), err == nil
}

// encodeJSON marshals v without HTML escaping and without a newline.
func encodeJSON(v any) (json.RawMessage, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return escapeSeparators(bytes.TrimRight(b.Bytes(), "\n")), nil
}

// escapeSeparators writes U+2028 and U+2029, which JavaScript line readers
// split on, as escapes, the way json.Marshal does (an encoder without HTML
// escaping keeps them raw inside json.RawMessage values). Raw, they can
// occur only inside strings, so the replacement is exact.
func escapeSeparators(b []byte) []byte {
	if !bytes.Contains(b, []byte("\u2028")) && !bytes.Contains(b, []byte("\u2029")) {
		return b
	}
	b = bytes.ReplaceAll(b, []byte("\u2028"), []byte(`\u2028`))
	return bytes.ReplaceAll(b, []byte("\u2029"), []byte(`\u2029`))
}

// indentJSON is JSON.stringify(v, null, 2) for raw JSON, keeping key order.
func indentJSON(raw []byte) string {
	var b bytes.Buffer
	if nestedOver(raw, maxIndentDepth) || json.Indent(&b, raw, "", "  ") != nil {
		s, _ := encodeJSON(string(raw))
		return string(s)
	}
	return b.String()
}

// maxIndentDepth is encoding/json's nesting limit: json.Indent fails on
// JSON nested deeper.
const maxIndentDepth = 10000

// nestedOver reports whether raw nests arrays and objects more than limit
// deep (brackets in strings aside). Past maxIndentDepth json.Indent
// fails, but only after writing the indentation of every level up to
// it: some 100 MB (two spaces a level, on each level's line) from a
// model's 20 KB of brackets.
func nestedOver(raw []byte, limit int) bool {
	depth, inString, escaped := 0, false, false
	for _, c := range raw {
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == '{' || c == '[':
			if depth++; depth > limit {
				return true
			}
		case c == '}' || c == ']':
			depth--
		}
	}
	return false
}
