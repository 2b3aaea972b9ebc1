package rpc

import (
	"encoding/json"
)

// object is a JSON object written with its members in the order given,
// as JavaScript writes the object literals of pi's answers (a Go map's
// members would come sorted by name).
type object []field

type field struct {
	name  string
	value any
}

// MarshalJSON implements json.Marshaler.
func (o object) MarshalJSON() ([]byte, error) {
	b := []byte{'{'}
	for i, f := range o {
		if i > 0 {
			b = append(b, ',')
		}
		name, _ := json.Marshal(f.name)
		v, err := json.Marshal(f.value)
		if err != nil {
			return nil, err
		}
		b = append(append(append(b, name...), ':'), v...)
	}
	return append(b, '}'), nil
}
