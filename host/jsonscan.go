package host

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// argScanner is decodeOrdered's single pass over tool-call arguments: it
// checks the syntax, the UTF-8, the \u escapes, the keys, the depth and
// the numbers of each value as it builds it, so that every byte is looked
// at once. (encoding/json's Decoder.Token, which it replaces, spent about
// 2 µs a value: 15 s of host CPU on 16 MiB of arguments.)
type argScanner struct {
	raw  []byte
	text string // raw, copied once: strings without escapes and numbers are slices of it
	i    int    // the next byte to read
	buf  []byte // a string with escapes, as it is unescaped

	// The members of the arrays and objects being read, the innermost
	// last: each is made once its end is read, at its size.
	vals  []any
	subs  []placedOrder // the orders of those of vals that have one
	keys  []string
	keyAt []int // the offset of each of keys

	orders  slab[keyOrder]
	keySlab slab[string]
	subSlab slab[*keyOrder]
	valSlab slab[any]
}

// errArgumentsEnd is the error of arguments cut short.
var errArgumentsEnd = errors.New("arguments are not valid JSON: unexpected end of JSON input")

// plain marks the bytes a string holds as they are: ASCII but for the
// quote, the backslash and the control characters.
var plain = func() (t [256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// space skips JSON's four white space characters.
func (s *argScanner) space() {
	for s.i < len(s.raw) {
		switch s.raw[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// value reads the value at s.i, inside depth arrays and objects.
func (s *argScanner) value(depth int) (any, *keyOrder, error) {
	if s.i >= len(s.raw) {
		return nil, nil, errArgumentsEnd
	}
	switch c := s.raw[s.i]; {
	case c == '{' || c == '[':
		if depth >= MaxArgumentDepth {
			return nil, nil, s.invalidf(s.i, "nested deeper than %d levels", MaxArgumentDepth)
		}
		if c == '{' {
			return s.object(depth + 1)
		}
		return s.array(depth + 1)
	case c == '"':
		str, err := s.string()
		return str, nil, err
	case c == '-' || c >= '0' && c <= '9':
		n, err := s.number()
		return n, nil, err
	case c == 't':
		return true, nil, s.literal("true")
	case c == 'f':
		return false, nil, s.literal("false")
	case c == 'n':
		return nil, nil, s.literal("null")
	}
	return nil, nil, s.unexpected(s.i, "looking for beginning of value")
}

// object reads the object at s.i. Its members wait on the scanner's
// stacks until its end, when the map is made at its size at once.
func (s *argScanner) object(depth int) (any, *keyOrder, error) {
	base, kbase, sbase := len(s.vals), len(s.keys), len(s.subs)
	s.i++ // '{'
	s.space()
	if s.i < len(s.raw) && s.raw[s.i] == '}' {
		s.i++
		return map[string]any{}, &s.orders.take(1)[0], nil
	}
	for {
		if s.i >= len(s.raw) {
			return nil, nil, errArgumentsEnd
		}
		if s.raw[s.i] != '"' {
			return nil, nil, s.unexpected(s.i, "looking for beginning of object key string")
		}
		at := s.i
		key, err := s.string()
		if err != nil {
			return nil, nil, err
		}
		if s.space(); s.i >= len(s.raw) {
			return nil, nil, errArgumentsEnd
		}
		if s.raw[s.i] != ':' {
			return nil, nil, s.unexpected(s.i, "after object key")
		}
		s.i++
		s.space()
		v, sub, err := s.value(depth)
		if err != nil {
			return nil, nil, err
		}
		s.keys, s.keyAt = push(s.keys, key), push(s.keyAt, at)
		s.element(v, sub)
		if done, err := s.next('}', "after object key:value pair"); err != nil {
			return nil, nil, err
		} else if done {
			return s.endObject(base, kbase, sbase)
		}
	}
}

// endObject makes the object whose members are on the stacks from base,
// kbase and sbase, and takes them off.
func (s *argScanner) endObject(base, kbase, sbase int) (any, *keyOrder, error) {
	keys := s.keys[kbase:]
	obj := make(map[string]any, len(keys))
	for j, k := range keys {
		obj[k] = s.vals[base+j]
		if len(obj) == j {
			return nil, nil, s.invalidf(s.keyAt[kbase+j], "duplicate key %q", k)
		}
	}
	order := s.orders.take(1)
	order[0].keys = s.keySlab.clone(keys)
	order[0].sub = s.takeSubs(base, sbase)
	s.keys, s.keyAt = s.keys[:kbase], s.keyAt[:kbase]
	s.vals = s.vals[:base]
	return obj, &order[0], nil
}

// array reads the array at s.i. Its order is nil when no element has one
// (an array of scalars).
func (s *argScanner) array(depth int) (any, *keyOrder, error) {
	base, sbase := len(s.vals), len(s.subs)
	s.i++ // '['
	s.space()
	if s.i < len(s.raw) && s.raw[s.i] == ']' {
		s.i++
		return []any{}, nil, nil
	}
	for {
		v, sub, err := s.value(depth)
		if err != nil {
			return nil, nil, err
		}
		s.element(v, sub)
		if done, err := s.next(']', "after array element"); err != nil {
			return nil, nil, err
		} else if done {
			break
		}
	}
	arr := s.valSlab.clone(s.vals[base:])
	s.vals = s.vals[:base]
	var order *keyOrder
	if sub := s.takeSubs(base, sbase); sub != nil {
		order = &s.orders.take(1)[0]
		order.sub = sub
	}
	return arr, order, nil
}

// element pushes the value of an array's element or an object's member,
// and its order if it has one.
func (s *argScanner) element(v any, sub *keyOrder) {
	s.vals = push(s.vals, v)
	if sub != nil {
		s.subs = push(s.subs, placedOrder{len(s.vals) - 1, sub})
	}
}

// takeSubs takes the orders from sbase off their stack, and returns the
// orders of the values from base, up to the last one that has one (nil
// when none has).
func (s *argScanner) takeSubs(base, sbase int) []*keyOrder {
	placed := s.subs[sbase:]
	s.subs = s.subs[:sbase]
	if len(placed) == 0 {
		return nil
	}
	subs := s.subSlab.take(placed[len(placed)-1].at - base + 1)
	for _, p := range placed {
		subs[p.at-base] = p.order
	}
	return subs
}

// placedOrder is the order of the value at s.vals[at].
type placedOrder struct {
	at    int
	order *keyOrder
}

// push appends v to a stack, doubling it when it is full (append grows a
// large slice by a quarter: the elements of a 16 MiB array would be
// copied some thirty times).
func push[T any](stack []T, v T) []T {
	if len(stack) == cap(stack) {
		stack = slices.Grow(stack, max(16, len(stack)))
	}
	return append(stack, v)
}

// slab hands out the small slices of one decoded value from a few large
// arrays: an argument nested deep has an object every few bytes, each
// with its keys and its orders, and one allocation each would double
// the collector's work. A slice handed out is capped at its length, so
// that an append to it (the coercion pass's) cannot reach the next one.
type slab[T any] struct {
	free []T
	size int // of the last array, doubled at each up to maxSlab
}

const maxSlab = 1024

// take returns n zero values.
func (s *slab[T]) take(n int) []T {
	if n > len(s.free) {
		if n > maxSlab/4 {
			return make([]T, n)
		}
		s.size = min(maxSlab, max(8, 2*s.size, n))
		s.free = make([]T, s.size)
	}
	out := s.free[:n:n]
	s.free = s.free[n:]
	return out
}

// clone returns a copy of src.
func (s *slab[T]) clone(src []T) []T {
	out := s.take(len(src))
	copy(out, src)
	return out
}

// next reads, after an element, either a comma (and the white space after
// it) or the closing bracket end, and reports which.
func (s *argScanner) next(end byte, context string) (bool, error) {
	if s.space(); s.i >= len(s.raw) {
		return false, errArgumentsEnd
	}
	switch s.raw[s.i] {
	case ',':
		s.i++
		s.space()
		return false, nil
	case end:
		s.i++
		return true, nil
	}
	return false, s.unexpected(s.i, context)
}

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
