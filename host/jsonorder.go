package host

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"

	"github.com/wasmagent/wasmagent/internal/jsonquote"
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
// then any keys it did not record, sorted.
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
		w.reserve(len(x))
		w.out = jsonquote.Append(w.out, x, false)
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
	w.out = append(w.out, '{')
	n := 0
	member := func(k string, v any, sub *keyOrder) error {
		if n++; n > 1 {
			w.out = append(w.out, ',')
		}
		w.reserve(len(k))
		w.out = append(jsonquote.Append(w.out, k, false), ':')
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

// at is the order of element i, nil when there is none.
func (o *keyOrder) at(i int) *keyOrder {
	if o == nil || i >= len(o.sub) {
		return nil
	}
	return o.sub[i]
}
