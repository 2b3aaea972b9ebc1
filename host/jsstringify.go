package host

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// MarshalJS is what pi writes for the same value: JSON.stringify's bytes
// for v's JSON (JSONStringify of its encoding). Every line wasmagent
// writes for a pi client (session files, RPC lines, --json events) is
// encoded by it, so that a client or a diff tool sees pi's bytes.
func MarshalJS(v any) ([]byte, error) {
	b, err := encodeJSON(v)
	if err != nil {
		return nil, err
	}
	return JSONStringify(b)
}

// JSONStringify returns JavaScript's JSON.stringify(JSON.parse(raw)) for
// the JSON text raw: no white space; strings with only the quote, the
// backslash and the control characters escaped (\b \t \n \f \r short,
// the others \u00xx) and lone surrogates as \udxxx, everything else as
// it is ("<", U+2028, U+FFFD); numbers as JavaScript writes them (1.0 as
// 1, 1e21 as 1e+21, -0 as 0, one out of a double's range as null); an
// object's array-index keys first, ascending, and a key given twice
// where it was first, with its last value. Invalid UTF-8 in a string is
// U+FFFD, byte by byte, as encoding/json reads it.
//
// Text already so written is returned as it is, after one pass over it
// that allocates nothing; an error says what is not JSON, and where.
func JSONStringify(raw []byte) ([]byte, error) {
	c := jsCanon{raw: raw}
	if err := c.top(); err != nil {
		return nil, err
	}
	if c.reorders != nil {
		c = jsCanon{raw: raw, reorders: c.reorders, rewrite: true}
		if err := c.top(); err != nil {
			return nil, err
		}
	}
	if !c.patched {
		return raw, nil
	}
	return append(c.out, raw[c.copied:]...), nil
}

// jsCanonMaxDepth bounds nesting: encoding/json's own limit.
const jsCanonMaxDepth = 10000

// jsCanon checks raw is written as JSON.stringify writes it and, where
// it is not, patches the span: out holds the text written up to copied,
// with the patches.
type jsCanon struct {
	raw     []byte
	i       int
	out     []byte
	copied  int
	patched bool

	reorders map[int]reorder // by where they start
	rewrite  bool            // the second pass, which writes them
}

func (c *jsCanon) patch(from, to int, with []byte) {
	if !c.patched {
		c.patched = true
		c.out = make([]byte, 0, len(c.raw)+len(with))
	}
	c.out = append(append(c.out, c.raw[c.copied:from]...), with...)
	c.copied = to
}

func (c *jsCanon) errorf(format string, args ...any) error {
	return fmt.Errorf("JSON at byte %d: %s", c.i, fmt.Sprintf(format, args...))
}

func (c *jsCanon) top() error {
	c.space()
	if err := c.value(0); err != nil {
		return err
	}
	if c.space(); c.i < len(c.raw) {
		return c.errorf("data after the top-level value")
	}
	return nil
}

// space skips white space, patching it out.
func (c *jsCanon) space() {
	start := c.i
	for c.i < len(c.raw) {
		switch c.raw[c.i] {
		case ' ', '\t', '\n', '\r':
			c.i++
			continue
		}
		break
	}
	if c.i > start {
		c.patch(start, c.i, nil)
	}
}

func (c *jsCanon) value(depth int) error {
	if c.i >= len(c.raw) {
		return c.errorf("unexpected end")
	}
	switch b := c.raw[c.i]; {
	case b == '{':
		return c.object(depth + 1)
	case b == '[':
		return c.array(depth + 1)
	case b == '"':
		_, err := c.str()
		return err
	case b == '-' || b >= '0' && b <= '9':
		return c.number()
	case bytes.HasPrefix(c.raw[c.i:], []byte("true")):
		c.i += 4
	case bytes.HasPrefix(c.raw[c.i:], []byte("false")):
		c.i += 5
	case bytes.HasPrefix(c.raw[c.i:], []byte("null")):
		c.i += 4
	default:
		return c.errorf("unexpected %q", b)
	}
	return nil
}

func (c *jsCanon) array(depth int) error {
	if depth > jsCanonMaxDepth {
		return c.errorf("nested deeper than %d", jsCanonMaxDepth)
	}
	c.i++
	c.space()
	if c.i < len(c.raw) && c.raw[c.i] == ']' {
		c.i++
		return nil
	}
	for {
		c.space()
		if err := c.value(depth); err != nil {
			return err
		}
		c.space()
		if c.i >= len(c.raw) {
			return c.errorf("unexpected end in an array")
		}
		switch c.raw[c.i] {
		case ',':
			c.i++
		case ']':
			c.i++
			return nil
		default:
			return c.errorf("unexpected %q in an array", c.raw[c.i])
		}
	}
}

// jsMember is one member of an object: its key (decoded) and the spans
// of its key and value in raw.
type jsMember struct {
	key            string
	keyFrom, keyTo int
	valFrom, valTo int
	index          uint64
	isIndex        bool
}

// reorder is an object whose members JavaScript orders otherwise than
// given: its members, and where it ends.
type reorder struct {
	members []jsMember
	end     int
}

func (c *jsCanon) object(depth int) error {
	start := c.i
	if r, ok := c.reorders[start]; ok && c.rewrite {
		return c.writeReordered(start, r, depth)
	}
	members, reorderKeys, err := c.members(depth)
	if err != nil {
		return err
	}
	if !c.rewrite && (reorderKeys || hasDuplicateKey(members)) {
		// Written anew by a second pass (JSONStringify), each byte
		// once however deep such objects nest.
		if c.reorders == nil {
			c.reorders = map[int]reorder{}
		}
		c.reorders[start] = reorder{members, c.i}
	}
	return nil
}

// members reads the object at c.i, patching its white space and values;
// reorder is whether an array-index key comes after another key or not
// in ascending order.
func (c *jsCanon) members(depth int) (members []jsMember, reorder bool, err error) {
	if depth > jsCanonMaxDepth {
		return nil, false, c.errorf("nested deeper than %d", jsCanonMaxDepth)
	}
	c.i++
	c.space()
	if c.i < len(c.raw) && c.raw[c.i] == '}' {
		c.i++
		return nil, false, nil
	}
	sawOther, sawIndex := false, false
	var prevIndex uint64
	for {
		c.space()
		if c.i >= len(c.raw) || c.raw[c.i] != '"' {
			return nil, false, c.errorf("expected a key")
		}
		m := jsMember{keyFrom: c.i}
		key, err := c.str()
		if err != nil {
			return nil, false, err
		}
		m.key, m.keyTo = key, c.i
		c.space()
		if c.i >= len(c.raw) || c.raw[c.i] != ':' {
			return nil, false, c.errorf("expected ':' after a key")
		}
		c.i++
		c.space()
		m.valFrom = c.i
		if err := c.value(depth); err != nil {
			return nil, false, err
		}
		m.valTo = c.i
		if n, ok := arrayIndex(m.key); ok {
			m.index, m.isIndex = n, true
			if sawOther || sawIndex && n <= prevIndex {
				reorder = true // out of order, or given twice
			}
			prevIndex, sawIndex = n, true
		} else {
			sawOther = true
		}
		members = append(members, m)
		c.space()
		if c.i >= len(c.raw) {
			return nil, false, c.errorf("unexpected end in an object")
		}
		if c.raw[c.i] == '}' {
			c.i++
			return members, reorder, nil
		}
		if c.raw[c.i] != ',' {
			return nil, false, c.errorf("unexpected %q in an object", c.raw[c.i])
		}
		c.i++
	}
}

func hasDuplicateKey(members []jsMember) bool {
	if len(members) < 2 {
		return false
	}
	if len(members) <= 16 {
		for i := range members {
			for j := range i {
				if members[i].key == members[j].key {
					return true
				}
			}
		}
		return false
	}
	seen := make(map[string]bool, len(members))
	for _, m := range members {
		if seen[m.key] {
			return true
		}
		seen[m.key] = true
	}
	return false
}

// writeReordered writes the object at start in JavaScript's order:
// array indexes ascending, then the other keys as given; a key given
// twice where it was first given, with its last value. Each value is
// written straight to out, patched as any other text.
func (c *jsCanon) writeReordered(start int, r reorder, depth int) error {
	members := r.members
	last := make(map[string]int, len(members))
	for i, m := range members {
		last[m.key] = i
	}
	order := make([]int, 0, len(members))
	first := make(map[string]bool, len(members))
	for i, m := range members {
		if !first[m.key] {
			first[m.key] = true
			order = append(order, i)
		}
	}
	slices.SortStableFunc(order, func(a, b int) int {
		ma, mb := members[a], members[b]
		switch {
		case ma.isIndex && mb.isIndex:
			return cmp.Compare(ma.index, mb.index)
		case ma.isIndex:
			return -1
		case mb.isIndex:
			return 1
		}
		return 0
	})
	c.patch(start, start, []byte{'{'})
	for n, i := range order {
		if n > 0 {
			c.out = append(c.out, ',')
		}
		c.out = append(appendJSQuotedUTF16(c.out, members[i].key), ':')
		v := members[last[members[i].key]]
		sub := jsCanon{raw: c.raw[:v.valTo], i: v.valFrom, out: c.out, copied: v.valFrom, patched: true, rewrite: true, reorders: c.reorders}
		if err := sub.value(depth); err != nil {
			return err
		}
		c.out = append(sub.out, c.raw[sub.copied:v.valTo]...)
	}
	c.out = append(c.out, '}')
	c.i, c.copied = r.end, r.end
	return nil
}

// str checks the string at c.i, patching it where JSON.stringify would
// write it otherwise, and returns its value (lone surrogates kept as
// WTF-8, which appendJSQuotedUTF16 writes back as escapes).
func (c *jsCanon) str() (string, error) {
	start := c.i
	c.i++
	nonASCII, plain := false, true
	for {
		if c.i >= len(c.raw) {
			return "", c.errorf("unterminated string")
		}
		b := c.raw[c.i]
		if b == '"' {
			break
		}
		if b < 0x20 {
			return "", c.errorf("control character %#x in a string", b)
		}
		if b >= 0x80 {
			nonASCII = true
			c.i++
			continue
		}
		if b != '\\' {
			c.i++
			continue
		}
		if c.i+1 >= len(c.raw) {
			return "", c.errorf("unterminated string")
		}
		switch e := c.raw[c.i+1]; e {
		case '"', '\\', 'b', 'f', 'n', 'r', 't':
			c.i += 2
		case '/':
			plain = false
			c.i += 2
		case 'u':
			u, ok := unitHex4(c.raw[c.i+2:])
			if !ok {
				return "", c.errorf("bad \\u escape")
			}
			if !canonicalUEscape(c.raw, c.i, u) {
				plain = false
			}
			c.i += 6
		default:
			return "", c.errorf("bad escape \\%c", e)
		}
	}
	c.i++ // the closing quote
	body := c.raw[start+1 : c.i-1]
	if nonASCII && !utf8.Valid(body) {
		plain = false
	}
	s := decodeJSString(body)
	if !plain {
		c.patch(start, c.i, appendJSQuotedUTF16(nil, s))
	}
	return s, nil
}

// canonicalUEscape reports whether JSON.stringify writes the \u escape at
// raw[i:] (of code unit u) as it is: a control character without a short
// escape, or a lone surrogate, in lower-case hex.
func canonicalUEscape(raw []byte, i int, u rune) bool {
	if bytes.ContainsAny(raw[i+2:i+6], "ABCDEF") {
		return false
	}
	switch {
	case u < 0x20:
		return u != '\b' && u != '\t' && u != '\n' && u != '\f' && u != '\r'
	case utf16.IsSurrogate(u):
		if u < 0xDC00 { // high: lone unless a low escape follows
			if lo, ok := followingUnit(raw, i+6); ok && lo >= 0xDC00 && lo < 0xE000 {
				return false
			}
			return true
		}
		if i >= 6 && raw[i-6] == '\\' && raw[i-5] == 'u' {
			if hi, ok := unitHex4(raw[i-4:]); ok && hi >= 0xD800 && hi < 0xDC00 && !escapedBackslash(raw, i-6) {
				return false
			}
		}
		return true
	}
	return false
}

// escapedBackslash reports whether the backslash at raw[i] is itself
// escaped (preceded by an odd run of backslashes).
func escapedBackslash(raw []byte, i int) bool {
	n := 0
	for j := i - 1; j >= 0 && raw[j] == '\\'; j-- {
		n++
	}
	return n%2 == 1
}

func followingUnit(raw []byte, i int) (rune, bool) {
	if i+6 > len(raw) || raw[i] != '\\' || raw[i+1] != 'u' {
		return 0, false
	}
	return unitHex4(raw[i+2:])
}

func unitHex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	var r rune
	for _, d := range b[:4] {
		switch {
		case d >= '0' && d <= '9':
			d -= '0'
		case d >= 'a' && d <= 'f':
			d -= 'a' - 10
		case d >= 'A' && d <= 'F':
			d -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | rune(d)
	}
	return r, true
}

// decodeJSString decodes a JSON string's body as JSON.parse does, into
// UTF-8; a lone surrogate is kept as its three-byte (WTF-8) form, and
// invalid UTF-8 becomes U+FFFD byte by byte.
func decodeJSString(body []byte) string {
	if bytes.IndexByte(body, '\\') < 0 && utf8.Valid(body) {
		return string(body)
	}
	out := make([]byte, 0, len(body))
	for i := 0; i < len(body); {
		b := body[i]
		if b >= 0x80 {
			r, n := utf8.DecodeRune(body[i:])
			out = utf8.AppendRune(out, r)
			i += n
			continue
		}
		if b != '\\' {
			out = append(out, b)
			i++
			continue
		}
		e := body[i+1]
		i += 2
		switch e {
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			u, _ := unitHex4(body[i:])
			i += 4
			if u >= 0xD800 && u < 0xDC00 {
				if lo, ok := followingUnit(body, i); ok && lo >= 0xDC00 && lo < 0xE000 {
					out = utf8.AppendRune(out, utf16.DecodeRune(u, lo))
					i += 6
					continue
				}
			}
			out = appendWTF8(out, u)
		default: // " \ /
			out = append(out, e)
		}
	}
	return string(out)
}

// appendWTF8 appends r as UTF-8, a surrogate as its three bytes.
func appendWTF8(b []byte, r rune) []byte {
	if utf16.IsSurrogate(r) {
		return append(b, 0xE0|byte(r>>12), 0x80|byte(r>>6)&0x3F, 0x80|byte(r)&0x3F)
	}
	return utf8.AppendRune(b, r)
}

// appendJSQuotedUTF16 is appendJSQuoted for a string that may hold lone
// surrogates in WTF-8 (decodeJSString): they are written as \udxxx, as
// JSON.stringify writes them.
func appendJSQuotedUTF16(b []byte, s string) []byte {
	if !containsSurrogate(s) {
		return appendJSQuoted(b, s)
	}
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); {
		if i+2 < len(s) && s[i] == 0xED && s[i+1] >= 0xA0 && s[i+1] <= 0xBF {
			r := rune(s[i]&0x0F)<<12 | rune(s[i+1]&0x3F)<<6 | rune(s[i+2]&0x3F)
			b = append(b, '\\', 'u', hex[r>>12], hex[r>>8&0xF], hex[r>>4&0xF], hex[r&0xF])
			i += 3
			continue
		}
		c := s[i]
		if c < 0x20 || c == '"' || c == '\\' {
			b = appendEscapedASCII(b, c)
		} else {
			b = append(b, c)
		}
		i++
	}
	return append(b, '"')
}

func containsSurrogate(s string) bool {
	for i := 0; i+1 < len(s); i++ {
		if s[i] == 0xED && s[i+1] >= 0xA0 && s[i+1] <= 0xBF {
			return true
		}
	}
	return false
}

// number checks the number at c.i, patching it where JavaScript writes
// it otherwise.
func (c *jsCanon) number() error {
	start := c.i
	if c.raw[c.i] == '-' {
		c.i++
	}
	intFrom := c.i
	digits := c.skipDigits()
	if digits == 0 || digits > 1 && c.raw[intFrom] == '0' {
		return c.errorf("bad number")
	}
	simple := true
	if c.i < len(c.raw) && c.raw[c.i] == '.' {
		c.i++
		if c.skipDigits() == 0 {
			return c.errorf("bad number")
		}
		simple = false
	}
	if c.i < len(c.raw) && (c.raw[c.i] == 'e' || c.raw[c.i] == 'E') {
		c.i++
		if c.i < len(c.raw) && (c.raw[c.i] == '+' || c.raw[c.i] == '-') {
			c.i++
		}
		if c.skipDigits() == 0 {
			return c.errorf("bad number")
		}
		simple = false
	}
	text := c.raw[start:c.i]
	// An integer of up to 15 digits is a double exactly, written back
	// as it is; but -0.
	if simple && digits <= 15 && !(text[0] == '-' && c.raw[intFrom] == '0') {
		return nil
	}
	f, err := strconv.ParseFloat(string(text), 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return c.errorf("bad number")
	}
	js := "null" // JSON.stringify writes ±Infinity so
	if !math.IsInf(f, 0) {
		js = jsNumberToString(f)
	}
	if js != string(text) {
		c.patch(start, c.i, []byte(js))
	}
	return nil
}

// skipDigits moves past the decimal digits at c.i and says how many.
func (c *jsCanon) skipDigits() int {
	from := c.i
	for c.i < len(c.raw) && c.raw[c.i] >= '0' && c.raw[c.i] <= '9' {
		c.i++
	}
	return c.i - from
}
