package openai

import "fmt"

// MaxEventValues bounds the JSON values (objects, arrays, and the members
// and elements after the first in each) of one event of a stream: one
// chunk, which openai-go decodes whole before the adapter sees any of it.
// Decoded, a value costs some 450 bytes of structs for a few bytes on the
// wire: on the old main one chunk of a million empty tool calls (14 MB,
// well within max_response_bytes) held 900 MB of heap before the cap on
// content blocks could refuse it, and 64 MiB of them would hold some
// 4 GB. A chunk of a real server holds tens of values; one that carries
// a whole message (4096 tool calls of a few fields each) holds some
// 30,000.
const MaxEventValues = 1 << 16

// floodError is an event of the stream with more than MaxEventValues
// values.
type floodError struct{ limit int }

func (e *floodError) Error() string {
	return fmt.Sprintf("the server sent an event of more than %d JSON values (one chunk of the stream; the host decodes at most that many at once)", e.limit)
}

// eventValues counts the JSON values of each event of an event stream as
// it is read, as openai-go's decoder splits it: lines end at "\n", an
// empty line ends an event, and only "data:" lines hold its JSON. A
// value is counted at its "{" or "[", or at the "," before it, outside
// strings; a string never spans lines in valid JSON, so each line starts
// outside one.
type eventValues struct {
	limit    int
	values   int     // in the current event
	lineLen  int     // bytes of the current line so far
	head     [5]byte // its first bytes, to tell a data line
	data     bool    // the current line is a data line (decided at its 5th byte)
	inString bool
	escaped  bool
}

// scan counts the values in p and returns how many of its bytes may be
// handed on: all of them, or those before the value over the limit.
func (c *eventValues) scan(p []byte) (int, error) {
	for i, b := range p {
		if b == '\n' {
			if c.lineLen == 0 || (c.lineLen == 1 && c.head[0] == '\r') {
				c.values = 0 // an empty line: the event ends
			}
			c.lineLen, c.data, c.inString, c.escaped = 0, false, false, false
			continue
		}
		if c.lineLen < len(c.head) {
			c.head[c.lineLen] = b
			c.lineLen++
			if c.lineLen == len(c.head) {
				c.data = string(c.head[:]) == "data:"
			}
			continue
		}
		c.lineLen++
		if !c.data {
			continue
		}
		switch {
		case c.inString:
			switch {
			case c.escaped:
				c.escaped = false
			case b == '\\':
				c.escaped = true
			case b == '"':
				c.inString = false
			}
			continue
		case b == '"':
			c.inString = true
			continue
		case b == '{' || b == '[' || b == ',':
			if c.values++; c.values > c.limit {
				return i, &floodError{c.limit}
			}
		}
	}
	return len(p), nil
}
