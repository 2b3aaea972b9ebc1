package host

import (
	"errors"
	"slices"
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
