package host

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"slices"
	"strings"
	"unicode/utf8"
)

// A message decoded from JSON keeps that JSON when its Go fields cannot
// say all of it: a user message whose content is a string, members the
// type does not know (a client's own fields, a newer pi's), a member
// absent (no timestamp, no usage) or of another type than the field's (a
// timestamp that is a string). pi keeps a message as the object it was
// given, in its events, its transcript, its session file and its RPC
// answers; so does wasmagent, as long as the Go fields still hold what
// was decoded (docs/loop.md 1).
type source struct {
	members []member // the object as given
	fields  []byte   // the encoding of the Go fields as decoded
}

// member is one member of a JSON object: its name and its value, compact
// and valid UTF-8.
type member struct {
	name  string
	value json.RawMessage
}

// decodeKeeping decodes the JSON object data into v (a pointer to the
// fields of a message, without its JSON methods), then returns what must
// be kept of data for encode to give it back: nil when the fields say it
// all. A member its field cannot hold (of another type, a content that
// is neither an array nor a string) leaves the field zero and is kept
// (pi takes any JSON); only data that is not a JSON object is an error.
// encodeFields encodes the fields as decoded.
func decodeKeeping(data []byte, v any, encodeFields func() ([]byte, error)) (*source, error) {
	exact := exactNames(data)
	if err := json.Unmarshal(exact, v); err != nil {
		if _, ok := err.(*json.UnmarshalTypeError); !ok {
			// A field's own decoder failed, which stops encoding/json
			// there: decode the members one by one, each on its own.
			if err := decodeEach(exact, v); err != nil {
				return nil, err
			}
		}
	}
	fields, err := encodeFields()
	if err != nil {
		return nil, err
	}
	if sameJSON(data, fields) {
		return nil, nil
	}
	members, err := objectMembers(data)
	if err != nil {
		return nil, err
	}
	return &source{members: members, fields: fields}, nil
}

// encode returns the message's JSON given its fields' encoding now: the
// object as given while the fields hold what was decoded; else the object
// as given with each member whose field changed as the field says now
// (a field that became zero, and so omitted, drops its member), and then
// the changed fields it did not have.
func (s *source) encode(fields []byte) ([]byte, error) {
	if bytes.Equal(fields, s.fields) {
		return writeMembers(s.members), nil
	}
	now, err := objectMembers(fields)
	if err != nil {
		return nil, err
	}
	then, err := objectMembers(s.fields)
	if err != nil {
		return nil, err
	}
	out := make([]member, 0, len(s.members)+len(now))
	given := make(map[string]bool, len(s.members))
	for _, m := range s.members {
		given[m.name] = true
		n, inNow := find(now, m.name)
		t, inThen := find(then, m.name)
		switch {
		case !inNow && !inThen, inNow == inThen && bytes.Equal(n, t):
			out = append(out, m) // not a field's, or its field did not change
		case inNow:
			out = append(out, member{m.name, n})
		}
	}
	for _, n := range now {
		if t, inThen := find(then, n.name); !given[n.name] && (!inThen || !bytes.Equal(n.value, t)) {
			out = append(out, n)
		}
	}
	return writeMembers(out), nil
}

// decodeEach decodes each member of the JSON object data into v on its
// own, leaving the fields whose member does not decode as they are.
// messageNames are the names of the members the messages' Go fields
// hold.
var messageNames = []string{"role", "content", "timestamp", "api", "provider", "model", "responseModel", "responseId",
	"usage", "stopReason", "errorMessage", "toolCallId", "toolName", "details", "isError"}

// exactNames is the JSON object data without the members whose names
// are a message field's but for their case ("Content", "ROLE"): JavaScript
// reads members by their exact names, where encoding/json would take
// them for the field's. They stay in the message as given (source).
func exactNames(data []byte) []byte {
	members, err := objectMembers(data)
	if err != nil {
		return data
	}
	odd := func(m member) bool {
		for _, n := range messageNames {
			if m.name != n && strings.EqualFold(m.name, n) {
				return true
			}
		}
		return false
	}
	if !slices.ContainsFunc(members, odd) {
		return data
	}
	return writeMembers(slices.DeleteFunc(members, odd))
}

func decodeEach(data []byte, v any) error {
	members, err := objectMembers(data)
	if err != nil {
		return err
	}
	for _, m := range members {
		one := appendQuoted([]byte{'{'}, m.name)
		one = append(append(append(one, ':'), m.value...), '}')
		json.Unmarshal(one, v) // a member that does not fit stays as given
	}
	return nil
}

func find(ms []member, name string) (json.RawMessage, bool) {
	for _, m := range ms {
		if m.name == name {
			return m.value, true
		}
	}
	return nil, false
}

// writeMembers writes members as one JSON object.
func writeMembers(ms []member) []byte {
	n := 2
	for _, m := range ms {
		n += len(m.name) + len(m.value) + 4
	}
	b := make([]byte, 0, n)
	b = append(b, '{')
	for i, m := range ms {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendQuoted(b, m.name)
		b = append(b, ':')
		b = append(b, m.value...)
	}
	return escapeSeparators(append(b, '}'))
}

// objectMembers splits a JSON object into its members, in order; a name
// given twice keeps its first place and its last value, as JSON.parse
// does. Each value is made compact and valid UTF-8 (invalid bytes, which
// valid JSON can hold only inside strings, become U+FFFD as they do when
// decoded).
func objectMembers(data []byte) ([]member, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if tok != json.Delim('{') {
		return nil, errors.New("not a JSON object")
	}
	var ms []member
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		name, _ := tok.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, err
		}
		var value bytes.Buffer
		if err := json.Compact(&value, raw); err != nil {
			return nil, err
		}
		v := validUTF8(value.Bytes())
		replaced := false
		for i := range ms {
			if ms[i].name == name {
				ms[i].value, replaced = v, true
			}
		}
		if !replaced {
			ms = append(ms, member{name, v})
		}
	}
	if _, err := dec.Token(); err != nil { // the closing brace
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("data after the object")
	}
	return ms, nil
}

// validUTF8 is b with each byte that is not UTF-8 replaced by U+FFFD, as
// encoding/json decodes it in a string.
func validUTF8(b []byte) json.RawMessage {
	if utf8.Valid(b) {
		return b
	}
	out := make([]byte, 0, len(b)+len(b)/2)
	for len(b) > 0 {
		r, n := utf8.DecodeRune(b)
		if r == utf8.RuneError && n == 1 {
			out = utf8.AppendRune(out, utf8.RuneError)
		} else {
			out = append(out, b[:n]...)
		}
		b = b[n:]
	}
	return out
}

// sameJSON reports whether a and b are written the same by
// JSON.stringify (JSONStringify): the same values, numbers by their
// value, strings whatever their escapes, and objects' keys in the same
// order, which pi keeps as given.
func sameJSON(a, b []byte) bool {
	if bytes.Equal(a, b) {
		return true
	}
	ja, err := JSONStringify(a)
	if err != nil {
		return false
	}
	jb, err := JSONStringify(b)
	return err == nil && bytes.Equal(ja, jb)
}
