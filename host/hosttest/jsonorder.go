package hosttest

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"strings"
)

// JSONOrder is the order of the keys of each object DecodeOrdered
// decoded, so that a comparison of normalised values can see key order
// too: pi writes its objects' keys in the order its code sets them, and
// a client or a diff tool reading wasmagent's lines sees that order.
type JSONOrder map[uintptr]objectKeys

// objectKeys holds the object too, so that its address is not reused by
// another while the order is kept.
type objectKeys struct {
	obj  map[string]any
	keys []string
}

// DecodeOrdered decodes data as json.Unmarshal into an any does, and
// returns the key order of its objects.
func DecodeOrdered(data []byte) (any, JSONOrder, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	order := JSONOrder{}
	v, err := order.value(dec)
	if err != nil {
		return nil, nil, err
	}
	if _, err := dec.Token(); err == nil {
		return nil, nil, errors.New("data after the top-level value")
	}
	return v, order, nil
}

func (o JSONOrder) value(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch tok {
	case json.Delim('{'):
		m := map[string]any{}
		var keys []string
		for dec.More() {
			k, err := dec.Token()
			if err != nil {
				return nil, err
			}
			v, err := o.value(dec)
			if err != nil {
				return nil, err
			}
			key := k.(string)
			if _, dup := m[key]; !dup {
				keys = append(keys, key)
			}
			m[key] = v
		}
		dec.Token()
		o[reflect.ValueOf(m).Pointer()] = objectKeys{m, keys}
		return m, nil
	case json.Delim('['):
		a := []any{}
		for dec.More() {
			v, err := o.value(dec)
			if err != nil {
				return nil, err
			}
			a = append(a, v)
		}
		dec.Token()
		return a, nil
	}
	return tok, nil
}

// Encode writes v as JSON with the objects DecodeOrdered decoded in
// their keys' order (keys they gained since last, sorted) and any other
// object's keys sorted.
func (o JSONOrder) Encode(v any) string {
	var b strings.Builder
	o.encode(&b, v)
	return b.String()
}

func (o JSONOrder) encode(b *strings.Builder, v any) {
	switch x := v.(type) {
	case map[string]any:
		keys := slices.DeleteFunc(slices.Clone(o[reflect.ValueOf(x).Pointer()].keys), func(k string) bool { _, ok := x[k]; return !ok })
		var rest []string
		for k := range x {
			if !slices.Contains(keys, k) {
				rest = append(rest, k)
			}
		}
		slices.Sort(rest)
		b.WriteByte('{')
		for i, k := range append(keys, rest...) {
			if i > 0 {
				b.WriteByte(',')
			}
			kb, _ := json.Marshal(k)
			b.Write(kb)
			b.WriteByte(':')
			o.encode(b, x[k])
		}
		b.WriteByte('}')
	case []any:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			o.encode(b, e)
		}
		b.WriteByte(']')
	default:
		vb, err := json.Marshal(x)
		if err != nil {
			vb = []byte(`"(does not encode)"`)
		}
		b.Write(vb)
	}
}
