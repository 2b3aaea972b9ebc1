package host

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// argScanner's scalars (strings, numbers, literals) and its errors, which
// name what is wrong and its byte offset.

// plain marks the bytes a string holds as they are: ASCII but for the
// quote, the backslash and the control characters.
var plain = func() (t [256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

func (s *argScanner) literal(word string) error {
	for k := 0; k < len(word); k++ {
		if s.i+k >= len(s.raw) {
			return errArgumentsEnd
		}
		if s.raw[s.i+k] != word[k] {
			return s.unexpected(s.i+k, fmt.Sprintf("in literal %s (expecting %s)", word, strconv.QuoteRune(rune(word[k]))))
		}
	}
	s.i += len(word)
	return nil
}

// string reads the string at s.i (its opening quote). One without escapes
// is copied once; one with escapes is unescaped into s.buf first.
func (s *argScanner) string() (string, error) {
	start := s.i + 1
	i := start
	for i < len(s.raw) {
		c := s.raw[i]
		if plain[c] {
			i++
			continue
		}
		if c == '"' {
			s.i = i + 1
			return s.text[start:i], nil
		}
		if c == '\\' {
			return s.escapedString(start, i)
		}
		n, err := s.nonPlain(i)
		if err != nil {
			return "", err
		}
		i += n
	}
	return "", errArgumentsEnd
}

// nonPlain checks the byte at i, in a string, that is neither plain, a
// quote nor a backslash: the start of a character past ASCII, whose
// length it returns, or a control character.
func (s *argScanner) nonPlain(i int) (int, error) {
	if s.raw[i] < 0x20 {
		return 0, s.unexpected(i, "in string literal")
	}
	r, n := utf8.DecodeRune(s.raw[i:])
	if r == utf8.RuneError && n == 1 {
		return 0, s.notUTF8(i)
	}
	return n, nil
}

// escapedString goes on with the string that starts at start from its
// first backslash, at i.
func (s *argScanner) escapedString(start, i int) (string, error) {
	s.buf = s.buf[:0]
	s.unescaped(start, i)
	run := i // the first byte not yet in s.buf
	for i < len(s.raw) {
		c := s.raw[i]
		switch {
		case plain[c]:
			i++
		case c == '"':
			s.unescaped(run, i)
			s.i = i + 1
			return string(s.buf), nil
		case c == '\\':
			s.unescaped(run, i)
			var err error
			if s.buf, i, err = s.escape(s.buf, i); err != nil {
				return "", err
			}
			run = i
		default:
			n, err := s.nonPlain(i)
			if err != nil {
				return "", err
			}
			i += n
		}
	}
	return "", errArgumentsEnd
}

// unescaped appends raw[from:to], which holds no escape, to s.buf, with
// room for an escape after it; s.buf doubles when full (append grows a
// large slice by a quarter: a 16 MiB string would be copied some thirty
// times).
func (s *argScanner) unescaped(from, to int) {
	if n := to - from + utf8.UTFMax; cap(s.buf)-len(s.buf) < n {
		s.buf = slices.Grow(s.buf, max(n, len(s.buf)))
	}
	s.buf = append(s.buf, s.raw[from:to]...)
}

// escape appends the character the escape at i (its backslash) stands
// for to b, and returns the index after the escape. Half of a surrogate
// pair alone is refused: Go's decoder would make it U+FFFD silently.
func (s *argScanner) escape(b []byte, i int) ([]byte, int, error) {
	if i+1 >= len(s.raw) {
		return b, i, errArgumentsEnd
	}
	switch c := s.raw[i+1]; c {
	case '"', '\\', '/':
		return append(b, c), i + 2, nil
	case 'b':
		return append(b, '\b'), i + 2, nil
	case 'f':
		return append(b, '\f'), i + 2, nil
	case 'n':
		return append(b, '\n'), i + 2, nil
	case 'r':
		return append(b, '\r'), i + 2, nil
	case 't':
		return append(b, '\t'), i + 2, nil
	case 'u':
		r, err := s.hex4(i + 2)
		if err != nil {
			return b, i, err
		}
		if !utf16.IsSurrogate(r) {
			return utf8.AppendRune(b, r), i + 6, nil
		}
		if r < 0xDC00 && i+7 < len(s.raw) && s.raw[i+6] == '\\' && s.raw[i+7] == 'u' {
			if lo, err := s.hex4(i + 8); err == nil && lo >= 0xDC00 && lo <= 0xDFFF {
				return utf8.AppendRune(b, utf16.DecodeRune(r, lo)), i + 12, nil
			}
		}
		return b, i, fmt.Errorf("arguments contain a lone surrogate \\u%04x at offset %d", r, i)
	}
	return b, i, s.unexpected(i+1, "in string escape code")
}

// hex4 reads the four hex digits of a \u escape at i.
func (s *argScanner) hex4(i int) (rune, error) {
	var r rune
	for k := i; k < i+4; k++ {
		if k >= len(s.raw) {
			return 0, errArgumentsEnd
		}
		c := s.raw[k]
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c -= 'a' - 10
		case c >= 'A' && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, s.unexpected(k, "in \\u hexadecimal character escape")
		}
		r = r<<4 | rune(c)
	}
	return r, nil
}

// number reads the number at s.i. It stays as written (json.Number) but
// for boundedNumber's replacements, and must fit a float64.
func (s *argScanner) number() (json.Number, error) {
	start := s.i
	exponent, err := s.numberSyntax()
	if err != nil {
		return "", err
	}
	text := json.Number(s.text[start:s.i])
	if !exponent && len(text) <= 300 {
		return text, nil // under 1e300, as written: boundedNumber keeps it
	}
	n, ok := boundedNumber(text)
	if _, err := strconv.ParseFloat(string(text), 64); err != nil || !ok {
		return "", s.invalidf(start, "number %.40s does not fit a 64-bit float", text)
	}
	return n, nil
}

// numberSyntax moves s.i past the number at s.i, -?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?,
// and reports whether it has an exponent.
func (s *argScanner) numberSyntax() (bool, error) {
	if s.raw[s.i] == '-' {
		s.i++
	}
	if s.i < len(s.raw) && s.raw[s.i] == '0' {
		s.i++
	} else if err := s.digits("in numeric literal"); err != nil {
		return false, err
	}
	if s.i < len(s.raw) && s.raw[s.i] == '.' {
		s.i++
		if err := s.digits("after decimal point in numeric literal"); err != nil {
			return false, err
		}
	}
	if s.i >= len(s.raw) || s.raw[s.i] != 'e' && s.raw[s.i] != 'E' {
		return false, nil
	}
	s.i++
	if s.i < len(s.raw) && (s.raw[s.i] == '+' || s.raw[s.i] == '-') {
		s.i++
	}
	return true, s.digits("in exponent of numeric literal")
}

// digits moves s.i past one or more decimal digits.
func (s *argScanner) digits(context string) error {
	start := s.i
	for s.i < len(s.raw) && s.raw[s.i] >= '0' && s.raw[s.i] <= '9' {
		s.i++
	}
	if s.i > start {
		return nil
	}
	if s.i >= len(s.raw) {
		return errArgumentsEnd
	}
	return s.unexpected(s.i, context)
}

// unexpected is the error of the character at i, which JSON does not
// allow there (context says where, in encoding/json's words).
func (s *argScanner) unexpected(i int, context string) error {
	r, n := utf8.DecodeRune(s.raw[i:])
	if r == utf8.RuneError && n == 1 {
		return s.notUTF8(i)
	}
	return s.invalidf(i, "invalid character %s %s", strconv.QuoteRune(r), context)
}

// invalid is the error of arguments that are not valid JSON at i.
func (s *argScanner) invalid(i int, what string) error {
	if r, n := utf8.DecodeRune(s.raw[i:]); r == utf8.RuneError && n == 1 {
		return s.notUTF8(i)
	}
	return fmt.Errorf("arguments are not valid JSON: %s at offset %d", what, i)
}

func (s *argScanner) invalidf(i int, format string, args ...any) error {
	return fmt.Errorf("arguments are not valid JSON: %s at offset %d", fmt.Sprintf(format, args...), i)
}

func (s *argScanner) notUTF8(i int) error {
	return fmt.Errorf("arguments are not valid UTF-8 at offset %d", i)
}
