package host

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"
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
	w.enc = json.NewEncoder(&w.b)
	w.enc.SetEscapeHTML(false)
	if err := w.write(v, order); err != nil {
		return nil, err
	}
	return escapeSeparators(w.b.Bytes()), nil
}

type orderedWriter struct {
	b   bytes.Buffer
	enc *json.Encoder // writes into b, without HTML escaping
}

// scalar writes one string, number, bool or null (or anything else
// json.Marshal takes).
func (w *orderedWriter) scalar(v any) error {
	switch x := v.(type) {
	case nil:
		w.b.WriteString("null")
		return nil
	case bool:
		w.b.WriteString(strconv.FormatBool(x))
		return nil
	case json.Number:
		w.b.WriteString(string(x))
		return nil
	}
	if err := w.enc.Encode(v); err != nil {
		return err
	}
	w.b.Truncate(w.b.Len() - 1) // Encode's newline
	return nil
}

func (w *orderedWriter) write(v any, order *keyOrder) error {
	b := &w.b
	switch x := v.(type) {
	case map[string]any:
		b.WriteByte('{')
		first := true
		write := func(k string, sub *keyOrder) error {
			if !first {
				b.WriteByte(',')
			}
			first = false
			if err := w.scalar(k); err != nil {
				return err
			}
			b.WriteByte(':')
			return w.write(x[k], sub)
		}
		written := 0
		if order != nil {
			for i, k := range order.keys { // keys are unique: decodeOrdered refuses duplicates
				if _, ok := x[k]; ok {
					written++
					if err := write(k, order.at(i)); err != nil {
						return err
					}
				}
			}
		}
		var rest []string
		if written < len(x) {
			for k := range x {
				if order == nil || !slices.Contains(order.keys, k) {
					rest = append(rest, k)
				}
			}
		}
		slices.Sort(rest)
		for _, k := range rest {
			if err := write(k, nil); err != nil {
				return err
			}
		}
		b.WriteByte('}')
		return nil
	case []any:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			if err := w.write(e, order.at(i)); err != nil {
				return err
			}
		}
		b.WriteByte(']')
		return nil
	}
	return w.scalar(v)
}

// at is the order of element i, nil when there is none.
func (o *keyOrder) at(i int) *keyOrder {
	if o == nil || i >= len(o.sub) {
		return nil
	}
	return o.sub[i]
}
