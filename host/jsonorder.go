package host

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"
	"unicode/utf8"
)

// keyOrder is the order in which a decoded object's keys were written
// (keys, with sub the order inside each value), or an array's elements'
// orders (sub by index). Scalars have none (nil), and neither has an
// array of scalars; sub ends at its last element that has one (at).
type keyOrder struct {
	keys []string
	sub  []*keyOrder
}

// encodeOrdered encodes v as encodeJSON does, but writes each object's keys
// in the order order recorded (the model's order, which JavaScript keeps),
// then any keys it did not record, sorted; array-index keys ("0", "7")
// come first, in ascending order, as in a JavaScript object.
func encodeOrdered(v any, order *keyOrder) (json.RawMessage, error) {
	w := &orderedWriter{}
	if err := w.write(v, order); err != nil {
		return nil, err
	}
	return escapeSeparators(w.out), nil
}

type orderedWriter struct {
	out     []byte
	scratch bytes.Buffer  // what enc writes
	enc     *json.Encoder // for values of other types, made at the first
}

// scalar writes one string, number, bool or null (or anything else
// json.Marshal takes).
func (w *orderedWriter) scalar(v any) error {
	switch x := v.(type) {
	case nil:
		w.out = append(w.out, "null"...)
		return nil
	case bool:
		w.out = strconv.AppendBool(w.out, x)
		return nil
	case json.Number:
		w.reserve(len(x))
		w.out = append(w.out, x...)
		return nil
	case string:
		w.reserve(len(x) + len(x)/8) // and some escapes
		w.out = appendQuoted(w.out, x)
		return nil
	}
	if w.enc == nil {
		w.enc = json.NewEncoder(&w.scratch)
		w.enc.SetEscapeHTML(false)
	}
	w.scratch.Reset()
	if err := w.enc.Encode(v); err != nil {
		return err
	}
	w.out = append(w.out, bytes.TrimSuffix(w.scratch.Bytes(), []byte("\n"))...) // Encode's newline
	return nil
}

// appendQuoted appends s to b as a JSON string, byte for byte as
// encoding/json writes it with SetEscapeHTML(false): the quote, the
// backslash and the control characters escaped (\b \f \n \r \t short),
// invalid UTF-8 as \ufffd, and U+2028 and U+2029 escaped. (The SDK's
// appendJSONString is the same with HTML escaping; host imports the
// standard library only, so it cannot share it.)
func appendQuoted(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if plain[c] {
				i++
				continue
			}
			b = appendEscapedASCII(append(b, s[start:i]...), c)
			i++
			start = i
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xF])
		default:
			i += n
			continue
		}
		i += n
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// appendEscapedASCII appends the escape of c, a quote, a backslash or a
// control character, as both encoding/json and JSON.stringify write it:
// \b \f \n \r \t short, the other controls as \u00xx.
func appendEscapedASCII(b []byte, c byte) []byte {
	const hex = "0123456789abcdef"
	switch c {
	case '"', '\\':
		return append(b, '\\', c)
	case '\b':
		return append(b, '\\', 'b')
	case '\f':
		return append(b, '\\', 'f')
	case '\n':
		return append(b, '\\', 'n')
	case '\r':
		return append(b, '\\', 'r')
	case '\t':
		return append(b, '\\', 't')
	}
	return append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
}

// reserve makes room for n more bytes and some brackets, doubling the
// buffer (append's own growth, by a quarter for large slices, would copy
// 16 MiB of arguments some twenty times).
func (w *orderedWriter) reserve(n int) {
	if n += 16; cap(w.out)-len(w.out) < n {
		w.out = slices.Grow(w.out, max(n, cap(w.out)))
	}
}

func (w *orderedWriter) write(v any, order *keyOrder) error {
	switch x := v.(type) {
	case map[string]any:
		return w.object(x, order)
	case []any:
		w.out = append(w.out, '[')
		for i, e := range x {
			if i > 0 {
				w.out = append(w.out, ',')
			}
			if err := w.write(e, order.at(i)); err != nil {
				return err
			}
		}
		w.out = append(w.out, ']')
		return nil
	}
	return w.scalar(v)
}

// object writes obj's keys in order's order, then those order does not
// have, sorted.
func (w *orderedWriter) object(obj map[string]any, order *keyOrder) error {
	if hasArrayIndexKey(obj) { // JavaScript puts them first: jsKeyOrder
		return w.jsObject(obj, order)
	}
	w.out = append(w.out, '{')
	n := 0
	member := func(k string, v any, sub *keyOrder) error {
		if n++; n > 1 {
			w.out = append(w.out, ',')
		}
		w.reserve(len(k))
		w.out = append(appendQuoted(w.out, k), ':')
		return w.write(v, sub)
	}
	if order != nil {
		for i, k := range order.keys { // keys are unique: decodeOrdered refuses duplicates
			if v, ok := obj[k]; ok {
				if err := member(k, v, order.at(i)); err != nil {
					return err
				}
			}
		}
	}
	if n < len(obj) {
		var recorded map[string]bool
		if order != nil {
			recorded = make(map[string]bool, len(order.keys))
			for _, k := range order.keys {
				recorded[k] = true
			}
		}
		var rest []string
		for k := range obj {
			if !recorded[k] {
				rest = append(rest, k)
			}
		}
		slices.Sort(rest)
		for _, k := range rest {
			if err := member(k, obj[k], nil); err != nil {
				return err
			}
		}
	}
	w.out = append(w.out, '}')
	return nil
}

// hasArrayIndexKey reports whether a key of obj is an array index, which
// a JavaScript object orders before the others.
func hasArrayIndexKey(obj map[string]any) bool {
	for k := range obj {
		if k != "" && k[0] >= '0' && k[0] <= '9' {
			if _, ok := arrayIndex(k); ok {
				return true
			}
		}
	}
	return false
}

// jsObject writes obj's keys in a JavaScript object's order (jsKeyOrder).
func (w *orderedWriter) jsObject(obj map[string]any, order *keyOrder) error {
	w.out = append(w.out, '{')
	for i, k := range jsKeyOrder(obj, order) {
		if i > 0 {
			w.out = append(w.out, ',')
		}
		w.reserve(len(k.key))
		w.out = append(appendQuoted(w.out, k.key), ':')
		if err := w.write(obj[k.key], k.sub); err != nil {
			return err
		}
	}
	w.out = append(w.out, '}')
	return nil
}

// at is the order of element i, nil when there is none.
func (o *keyOrder) at(i int) *keyOrder {
	if o == nil || i >= len(o.sub) {
		return nil
	}
	return o.sub[i]
}
