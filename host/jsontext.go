package host

import (
	"bytes"
	"cmp"
	"encoding/json"
	"slices"
	"strconv"

	"github.com/wasmagent/wasmagent/host/internal/jsonread"
)

// MaxArgumentDepth bounds the nesting of tool-call arguments.
const MaxArgumentDepth = 128

// decodeOrdered decodes one JSON value the way the loop accepts tool-call
// arguments: valid UTF-8, no lone surrogate escapes, no duplicate object
// keys, no nesting deeper than MaxArgumentDepth, numbers that fit a float64,
// nothing after the value. Numbers stay json.Number, so no precision is lost
// (but for numbers too long or too far out for exact arithmetic: boundedNumber).
// It also returns the order of every object's keys, for encodeOrdered.
//
// It is one pass over raw (argScanner), linear in its length: a model
// may send 16 MiB of arguments (DefaultMaxArgumentBytes). An error names
// the first thing wrong and its byte offset. The strings of the value
// share one copy of raw: a caller that keeps one string keeps it all.
func decodeOrdered(raw []byte) (any, *keyOrder, error) {
	s := argScanner{raw: raw, text: string(raw)}
	s.space()
	v, order, err := s.value(0)
	if err != nil {
		return nil, nil, err
	}
	if s.space(); s.i < len(raw) {
		return nil, nil, s.invalid(s.i, "data after the top-level value")
	}
	return v, order, nil
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

// indentJSON is JSON.stringify(v, null, 2) for raw JSON, keeping key order;
// or, where that is not JSON or would be over maxIndented, raw as a JSON
// string.
func indentJSON(raw []byte) string {
	var b bytes.Buffer
	if jsonread.NestedOver(raw, maxIndentDepth) || indentedSize(raw) > maxIndented(len(raw)) {
		s, _ := encodeJSON(string(raw))
		return string(s)
	}
	if s, ok := jsIndent(raw); ok && len(s) <= maxIndented(len(raw)) { // a number may grow: 1e20 is 21 digits
		return s
	}
	if json.Indent(&b, raw, "", "  ") != nil {
		s, _ := encodeJSON(string(raw))
		return string(s)
	}
	return b.String()
}

// maxIndented bounds the indented text of n bytes of arguments: four
// times n and a mebibyte. Indentation costs two bytes a level on each
// line, so that a model's arguments nested a hundred deep on every line
// indent to some forty times their size (16 MiB of them to 700 MB of
// error text, which JavaScript, pi's, cannot even hold as a string).
// Arguments of usual shapes indent to two or three times their size.
func maxIndented(n int) int { return 4*n + 1<<20 }

// indentedSize is the length of json.Indent(raw, "", "  ")'s output when
// raw is valid JSON, counted without writing it: json.Indent drops the
// white space between tokens, writes ": " for ':', puts each element on
// a line of its own indented two spaces a level, writes an empty object
// or array as {} or [], and keeps the white space after the value.
func indentedSize(raw []byte) int {
	size, depth := 0, 0
	open, inString, escaped := false, false, false // open: after '{' or '[', before the first element
	for _, c := range raw {
		if inString {
			size++
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
			continue
		}
		if c == ' ' || c == '\t' || c == '\n' || c == '\r' {
			continue
		}
		closing := c == '}' || c == ']'
		if open && !closing {
			open = false
			depth++
			size += 1 + 2*depth // the first element's line
		}
		size++
		switch c {
		case '"':
			inString = true
		case '{', '[':
			open = true
		case ',':
			size += 1 + 2*depth
		case ':':
			size++
		case '}', ']':
			if open {
				open = false
			} else {
				depth--
				size += 1 + 2*max(depth, 0)
			}
		}
	}
	// json.Indent copies the white space after the top-level value.
	return size + len(raw) - len(bytes.TrimRight(raw, " \t\n\r"))
}

// maxIndentDepth is encoding/json's nesting limit: json.Indent fails on
// JSON nested deeper, but only after writing the indentation of every
// level up to it: some 100 MB (two spaces a level, on each level's line)
// from a model's 20 KB of brackets, so the depth is checked first.
const maxIndentDepth = 10000

// jsIndent is JSON.stringify(JSON.parse(raw), null, 2), for arguments
// decodeOrdered accepts: numbers as JavaScript writes them (1.50 as 1.5,
// 1e2 as 100), strings escaped as JSON.stringify escapes them (only the
// quote, the backslash and control characters; U+2028 and non-ASCII
// stay as they are, whatever escapes the model wrote), an object's
// array-index keys ("0", "7") first in ascending order, then the others
// in the model's. ok is false when raw is not such arguments.
func jsIndent(raw []byte) (string, bool) {
	v, order, err := decodeOrdered(raw)
	if err != nil {
		return "", false
	}
	var b []byte
	b = appendJSIndented(b, v, order, "")
	return string(b), true
}

func appendJSIndented(b []byte, v any, order *keyOrder, indent string) []byte {
	switch x := v.(type) {
	case nil:
		return append(b, "null"...)
	case bool:
		if x {
			return append(b, "true"...)
		}
		return append(b, "false"...)
	case json.Number:
		f, _ := jsonNumberValue(string(x))
		return append(b, jsNumberToString(f)...)
	case string:
		return appendJSQuoted(b, x)
	case []any:
		if len(x) == 0 {
			return append(b, "[]"...)
		}
		inner := indent + "  "
		b = append(b, '[')
		for i, e := range x {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(append(b, '\n'), inner...)
			b = appendJSIndented(b, e, order.at(i), inner)
		}
		return append(append(append(b, '\n'), indent...), ']')
	case map[string]any:
		if len(x) == 0 {
			return append(b, "{}"...)
		}
		inner := indent + "  "
		b = append(b, '{')
		for n, k := range jsKeyOrder(x, order) {
			if n > 0 {
				b = append(b, ',')
			}
			b = append(append(b, '\n'), inner...)
			b = append(appendJSQuoted(b, k.key), ": "...)
			b = appendJSIndented(b, x[k.key], k.sub, inner)
		}
		return append(append(append(b, '\n'), indent...), '}')
	}
	return b
}

type jsKey struct {
	key string
	sub *keyOrder
}

// jsKeyOrder is the order of a JavaScript object's keys: array indexes
// (canonical decimal integers below 2^32-1) ascending, then the other
// keys in the order they were written (order; keys it lacks, sorted).
func jsKeyOrder(obj map[string]any, order *keyOrder) []jsKey {
	keys := make([]jsKey, 0, len(obj))
	seen := make(map[string]bool, len(obj))
	if order != nil {
		for i, k := range order.keys {
			if _, ok := obj[k]; ok && !seen[k] {
				seen[k] = true
				keys = append(keys, jsKey{k, order.at(i)})
			}
		}
	}
	var rest []string
	for k := range obj {
		if !seen[k] {
			rest = append(rest, k)
		}
	}
	slices.Sort(rest)
	for _, k := range rest {
		keys = append(keys, jsKey{key: k})
	}
	var indexes, others []jsKey
	for _, k := range keys {
		if _, ok := arrayIndex(k.key); ok {
			indexes = append(indexes, k)
		} else {
			others = append(others, k)
		}
	}
	slices.SortStableFunc(indexes, func(a, b jsKey) int {
		i, _ := arrayIndex(a.key)
		j, _ := arrayIndex(b.key)
		return cmp.Compare(i, j)
	})
	return append(indexes, others...)
}

// arrayIndex reports whether k is an array index as JavaScript orders
// object keys: "0", or a decimal integer without leading zeros, below
// 2^32-1.
func arrayIndex(k string) (uint64, bool) {
	if k == "" || len(k) > 10 || (len(k) > 1 && k[0] == '0') {
		return 0, false
	}
	n, err := strconv.ParseUint(k, 10, 64)
	if err != nil || n >= 1<<32-1 {
		return 0, false
	}
	return n, true
}

// appendJSQuoted appends s as JSON.stringify writes a string: the quote,
// the backslash and the control characters below U+0020 escaped (\b \f
// \n \r \t short, the others as \u00xx), everything else as it is.
func appendJSQuoted(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		b = appendEscapedASCII(append(b, s[start:i]...), c)
		start = i + 1
	}
	return append(append(b, s[start:]...), '"')
}
