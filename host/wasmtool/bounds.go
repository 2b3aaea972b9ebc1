package wasmtool

import (
	"bytes"
	"encoding/json"
	"fmt"
	"unicode/utf8"
)

// MaxContentBlocks bounds the content blocks of one plugin result (an
// execute output, an update, an after_tool_call rewrite), as the model's
// answers are bounded: a few bytes of JSON a block would otherwise cost
// the host some 400 bytes each, in every copy of the result (8 MiB of
// empty text blocks decoded into 220 MiB), and reach the model as that
// many blocks.
const MaxContentBlocks = 4096

// blockList is a JSON array of content blocks decoded one at a time, so
// that an array over MaxContentBlocks is refused before it is held.
// Unknown fields in a block are errors, as everywhere in the ABI.
type blockList[T any] []T

func (l *blockList[T]) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if tok, err := dec.Token(); err != nil || tok != json.Delim('[') {
		return fmt.Errorf("content is %.40s, not an array", b)
	}
	list := blockList[T]{}
	for dec.More() {
		if len(list) == MaxContentBlocks {
			return fmt.Errorf("content has more than %d blocks (wasmtool.MaxContentBlocks)", MaxContentBlocks)
		}
		var v T
		if err := dec.Decode(&v); err != nil {
			return fmt.Errorf("content[%d]: %w", len(list), err)
		}
		list = append(list, v)
	}
	*l = list
	return nil
}

// validText is b with each byte of invalid UTF-8 replaced by U+FFFD, as
// the JSON decoder does in the strings it decodes: so that what the host
// keeps as raw JSON (details, rewritten arguments) is valid UTF-8 too, and
// every JSON line the host writes (events, sessions, audit) can be read
// by a strict decoder.
func validText(b []byte) []byte {
	if utf8.Valid(b) {
		return b
	}
	return []byte(textOf(string(b)))
}
