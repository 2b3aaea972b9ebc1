package host

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"unicode/utf8"
)

// decodeOrderedOracle is decodeOrdered as it was written first, on
// encoding/json's Decoder.Token (about 2 µs a node): kept as the oracle
// FuzzDecodeOrderedOracle and the benchmarks compare the scanner with.
func decodeOrderedOracle(raw []byte) (any, *keyOrder, error) {
	if !utf8.Valid(raw) {
		return nil, nil, errors.New("arguments are not valid UTF-8")
	}
	if err := oracleSurrogates(raw); err != nil {
		return nil, nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	v, order, err := oracleValue(dec, 0)
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

func oracleValue(dec *json.Decoder, depth int) (any, *keyOrder, error) {
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
			return oracleObject(dec, depth+1)
		}
		if t == '[' {
			return oracleArray(dec, depth+1)
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

func oracleObject(dec *json.Decoder, depth int) (any, *keyOrder, error) {
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
		v, sub, err := oracleValue(dec, depth)
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

func oracleArray(dec *json.Decoder, depth int) (any, *keyOrder, error) {
	arr := []any{}
	order := &keyOrder{}
	for dec.More() {
		v, sub, err := oracleValue(dec, depth)
		if err != nil {
			return nil, nil, err
		}
		arr = append(arr, v)
		order.sub = append(order.sub, sub)
	}
	_, err := dec.Token() // ']'
	return arr, order, err
}

// oracleSurrogates refuses \u escapes that name half of a surrogate pair
// without the other half; Go's decoder would silently turn them into U+FFFD.
func oracleSurrogates(raw []byte) error {
	for i := 0; i < len(raw); i++ {
		if raw[i] != '\\' || i+1 >= len(raw) {
			continue
		}
		if raw[i+1] != 'u' {
			i++
			continue
		}
		r, ok := oracleHex4(raw, i+2)
		if !ok {
			return nil // malformed escape: the decoder reports it
		}
		switch {
		case r >= 0xDC00 && r <= 0xDFFF:
			return fmt.Errorf("arguments contain a lone surrogate \\u%04x", r)
		case r >= 0xD800 && r <= 0xDBFF:
			lo, ok := oracleHex4(raw, i+8)
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

func oracleHex4(b []byte, at int) (rune, bool) {
	if at+4 > len(b) {
		return 0, false
	}
	n, err := strconv.ParseUint(string(b[at:at+4]), 16, 16)
	return rune(n), err == nil
}

// encodeOrderedOracle is encodeOrdered as it was written first, on an
// Encoder for each string: the oracle of the encoder.
func encodeOrderedOracle(v any, order *keyOrder) (json.RawMessage, error) {
	w := &oracleWriter{}
	w.enc = json.NewEncoder(&w.b)
	w.enc.SetEscapeHTML(false)
	if err := w.write(v, order); err != nil {
		return nil, err
	}
	return escapeSeparators(w.b.Bytes()), nil
}

type oracleWriter struct {
	b   bytes.Buffer
	enc *json.Encoder // writes into b, without HTML escaping
}

func (w *oracleWriter) scalar(v any) error {
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

func (w *oracleWriter) write(v any, order *keyOrder) error {
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
			for i, k := range order.keys {
				if _, ok := x[k]; ok {
					written++
					if err := write(k, order.sub[i]); err != nil {
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
			var sub *keyOrder
			if order != nil && i < len(order.sub) {
				sub = order.sub[i]
			}
			if err := w.write(e, sub); err != nil {
				return err
			}
		}
		b.WriteByte(']')
		return nil
	}
	return w.scalar(v)
}
