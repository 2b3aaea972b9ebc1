// Package jsonread reads JSON in one pass over its bytes, for the
// decoders of known shapes that want to be fast (host's messages,
// host/session's entries): a Scanner checks what it reads and gives up at
// anything its caller does not expect, so that the caller can leave that
// input to encoding/json, which decodes it the same way, slower.
package jsonread

import (
	"bytes"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// Scanner reads one JSON text. Its methods read the value that comes
// next as the kind they name, checking it against JSON's grammar; at
// anything else the Scanner fails: OK turns false and every later read
// gives zero values. It never panics, whatever the input (RATIONALE.md
// "Why does a session load through a scanner of its own?").
type Scanner struct {
	data []byte
	i    int
	ok   bool
	lone bool // a string had a lone surrogate escape
}

// New returns a Scanner of data.
func New(data []byte) *Scanner { return &Scanner{data: data, ok: true} }

// OK reports whether everything read so far was as expected.
func (s *Scanner) OK() bool { return s.ok }

// LoneSurrogate reports whether a string read had a lone surrogate
// escape ("\ud800"), read as U+FFFD: JavaScript keeps it, so a caller
// that must give the text back as pi would leaves such input to a
// decoder that keeps it.
func (s *Scanner) LoneSurrogate() bool { return s.lone }

// Fail makes the Scanner fail: its caller met something it does not read.
func (s *Scanner) Fail() { s.ok = false; s.i = len(s.data) }

// End reports whether only white space is left and nothing failed.
func (s *Scanner) End() bool {
	s.space()
	return s.ok && s.i == len(s.data)
}

func (s *Scanner) space() {
	for s.i < len(s.data) {
		switch s.data[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// Peek is the next byte after white space, 0 at the end.
func (s *Scanner) Peek() byte {
	s.space()
	if s.i < len(s.data) {
		return s.data[s.i]
	}
	return 0
}

// expect reads byte c after white space.
func (s *Scanner) expect(c byte) {
	if s.Peek() != c {
		s.Fail()
		return
	}
	s.i++
}

// Members calls member for each member of the object that comes next,
// with its name (valid until the next read); member must read the value.
// A name with escapes fails.
func (s *Scanner) Members(member func(name []byte)) {
	s.expect('{')
	if s.Peek() == '}' {
		s.i++
		return
	}
	for s.ok {
		s.expect('"')
		start := s.i
		for s.i < len(s.data) && s.data[s.i] != '"' && s.data[s.i] != '\\' && s.data[s.i] >= 0x20 {
			s.i++
		}
		if s.i >= len(s.data) || s.data[s.i] != '"' {
			s.Fail()
			return
		}
		name := s.data[start:s.i]
		s.i++
		s.expect(':')
		if !s.ok {
			return
		}
		member(name)
		switch s.Peek() {
		case ',':
			s.i++
		case '}':
			s.i++
			return
		default:
			s.Fail()
		}
	}
}

// Elements calls element for each element of the array that comes next;
// element must read it.
func (s *Scanner) Elements(element func()) {
	s.expect('[')
	if s.Peek() == ']' {
		s.i++
		return
	}
	for s.ok {
		element()
		switch s.Peek() {
		case ',':
			s.i++
		case ']':
			s.i++
			return
		default:
			s.Fail()
		}
	}
}

// Str reads a string as encoding/json decodes it: escapes undone, and
// each byte that is not UTF-8 and each lone surrogate as U+FFFD.
func (s *Scanner) Str() string {
	s.expect('"')
	start := s.i
	ascii := true
	for s.i < len(s.data) {
		c := s.data[s.i]
		switch {
		case c == '"':
			v := s.data[start:s.i]
			s.i++
			if !ascii && !utf8.Valid(v) {
				return string(ValidUTF8(v))
			}
			return string(v)
		case c == '\\':
			return s.escaped(start)
		case c < 0x20:
			s.Fail()
			return ""
		case c >= 0x80:
			ascii = false
		}
		s.i++
	}
	s.Fail()
	return ""
}

// skipString reads a string, checking it, without decoding it.
func (s *Scanner) skipString() {
	s.expect('"')
	for s.i < len(s.data) {
		switch c := s.data[s.i]; {
		case c == '"':
			s.i++
			return
		case c < 0x20:
			s.Fail()
			return
		case c == '\\':
			if s.i+1 >= len(s.data) {
				s.Fail()
				return
			}
			s.i += 2
			switch s.data[s.i-1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				s.hex4()
			default:
				s.Fail()
				return
			}
			continue
		}
		s.i++
	}
	s.Fail()
}

// escaped reads a string that has an escape, its text from start: it
// checks the string to its end first (skipString), then builds it at its
// size, copying the runs between escapes whole.
func (s *Scanner) escaped(start int) string {
	s.i = start - 1 // the opening quote
	s.skipString()
	if !s.ok {
		return ""
	}
	data := s.data[start : s.i-1]
	var b strings.Builder
	b.Grow(len(data))
	for len(data) > 0 {
		k := bytes.IndexByte(data, '\\')
		if k < 0 {
			b.Write(data)
			break
		}
		b.Write(data[:k])
		c := data[k+1]
		data = data[k+2:]
		switch c {
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'u':
			r := hex4(data)
			data = data[4:]
			if utf16.IsSurrogate(r) {
				// its pair must follow at once; a lone one is U+FFFD
				// and what follows is read on its own, as encoding/json does
				r2 := utf8.RuneError
				if len(data) >= 6 && data[0] == '\\' && data[1] == 'u' {
					if p := utf16.DecodeRune(r, hex4(data[2:])); p != utf8.RuneError {
						r2, data = p, data[6:]
					}
				}
				s.lone = s.lone || r2 == utf8.RuneError
				r = r2
			}
			b.WriteRune(r)
		default: // '"', '\\', '/'
			b.WriteByte(c)
		}
	}
	if str := b.String(); utf8.ValidString(str) {
		return str
	}
	return string(ValidUTF8([]byte(b.String())))
}

// hex4 is the value of four hex digits that skipString has checked.
func hex4(d []byte) rune {
	var r rune
	for _, c := range d[:4] {
		switch {
		case c <= '9':
			c -= '0'
		case c <= 'F':
			c = c - 'A' + 10
		default:
			c = c - 'a' + 10
		}
		r = r*16 + rune(c)
	}
	return r
}

func (s *Scanner) hex4() rune {
	if s.i+4 > len(s.data) {
		s.Fail()
		return 0
	}
	var r rune
	for _, c := range s.data[s.i : s.i+4] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			c = c - 'A' + 10
		default:
			s.Fail()
			return 0
		}
		r = r*16 + rune(c)
	}
	s.i += 4
	return r
}

// number reads a number's text, checked against JSON's grammar.
func (s *Scanner) number() []byte {
	s.space()
	start := s.i
	if s.i < len(s.data) && s.data[s.i] == '-' {
		s.i++
	}
	digits := func() int {
		n := 0
		for s.i < len(s.data) && '0' <= s.data[s.i] && s.data[s.i] <= '9' {
			s.i++
			n++
		}
		return n
	}
	switch n := digits(); {
	case n == 0, n > 1 && s.data[s.i-n] == '0':
		s.Fail()
		return nil
	}
	if s.i < len(s.data) && s.data[s.i] == '.' {
		s.i++
		if digits() == 0 {
			s.Fail()
			return nil
		}
	}
	if s.i < len(s.data) && (s.data[s.i] == 'e' || s.data[s.i] == 'E') {
		s.i++
		if s.i < len(s.data) && (s.data[s.i] == '+' || s.data[s.i] == '-') {
			s.i++
		}
		if digits() == 0 {
			s.Fail()
			return nil
		}
	}
	return s.data[start:s.i]
}

// Integer reads a number that is an integer as encoding/json takes one
// into an int (no fraction, no exponent); any other gives up.
func (s *Scanner) Integer() int64 {
	n := s.number()
	v, err := strconv.ParseInt(string(n), 10, 64)
	if err != nil {
		s.Fail()
	}
	return v
}

// Float reads a number as encoding/json decodes it into a float64.
func (s *Scanner) Float() float64 {
	n := s.number()
	v, err := strconv.ParseFloat(string(n), 64)
	if err != nil {
		s.Fail()
	}
	return v
}

// Bool reads true or false.
func (s *Scanner) Bool() bool {
	s.space()
	switch {
	case s.literal("true"):
		return true
	case s.literal("false"):
		return false
	}
	s.Fail()
	return false
}

func (s *Scanner) literal(word string) bool {
	if len(s.data)-s.i >= len(word) && string(s.data[s.i:s.i+len(word)]) == word {
		s.i += len(word)
		return true
	}
	return false
}

// Skip reads any value, checking it, and returns its text (nil when it
// fails).
func (s *Scanner) Skip() []byte { return s.skip(0) }

func (s *Scanner) skip(depth int) []byte {
	if depth > 200 {
		s.Fail() // deeper than a message goes: encoding/json's turn
		return nil
	}
	start := s.i
	switch c := s.Peek(); {
	case c == '{':
		start = s.i
		s.Members(func([]byte) { s.skip(depth + 1) })
	case c == '[':
		start = s.i
		s.Elements(func() { s.skip(depth + 1) })
	case c == '"':
		start = s.i
		s.skipString()
	case c == '-' || '0' <= c && c <= '9':
		return s.number()
	case c == 't' || c == 'f':
		start = s.i
		s.Bool()
	case c == 'n':
		start = s.i
		if !s.literal("null") {
			s.Fail()
		}
	default:
		s.Fail()
	}
	if !s.ok {
		return nil
	}
	return s.data[start:s.i]
}

// ValidUTF8 is b with each byte that is not UTF-8 replaced by U+FFFD, as
// encoding/json decodes it in a string.
func ValidUTF8(b []byte) []byte {
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
