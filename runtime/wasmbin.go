package runtime

import (
	"errors"
	"fmt"
)

// reader decodes the WebAssembly binary format. The first error sticks:
// later reads return zero values, and callers check err once.
type reader struct {
	b   []byte
	pos int
	err error
}

var errEOF = errors.New("unexpected end of data")

func (r *reader) more() bool { return r.err == nil && r.pos < len(r.b) }

func (r *reader) fail(err error) {
	if r.err == nil {
		r.err = err
	}
}

func (r *reader) byte() byte {
	if r.err != nil {
		return 0
	}
	if r.pos >= len(r.b) {
		r.fail(errEOF)
		return 0
	}
	c := r.b[r.pos]
	r.pos++
	return c
}

func (r *reader) peek() byte {
	if r.err != nil || r.pos >= len(r.b) {
		return 0
	}
	return r.b[r.pos]
}

func (r *reader) bytes(n int) []byte {
	if r.err != nil {
		return nil
	}
	if n < 0 || n > len(r.b)-r.pos {
		r.fail(errEOF)
		return nil
	}
	b := r.b[r.pos : r.pos+n]
	r.pos += n
	return b
}

func (r *reader) rest() []byte {
	if r.err != nil {
		return nil
	}
	b := r.b[r.pos:]
	r.pos = len(r.b)
	return b
}

// uleb reads an unsigned LEB128 of at most bits bits. Encodings the spec
// forbids (too long, unused bits set) are errors: re-encoding them would
// turn an invalid module into a valid one.
func (r *reader) uleb(bits uint) uint64 {
	var v uint64
	for shift := uint(0); ; shift += 7 {
		c := r.byte()
		if r.err != nil {
			return 0
		}
		if shift+7 > bits && (c&0x80 != 0 || uint64(c) >= 1<<(bits-shift)) {
			r.fail(fmt.Errorf("malformed %d-bit integer at offset %d", bits, r.pos))
			return 0
		}
		v |= uint64(c&0x7f) << shift
		if c&0x80 == 0 {
			return v
		}
	}
}

// sleb reads a signed LEB128 of at most bits bits, as strictly.
func (r *reader) sleb(bits uint) int64 {
	var v int64
	for shift := uint(0); ; shift += 7 {
		c := r.byte()
		if r.err != nil {
			return 0
		}
		if shift+7 > bits {
			rem := bits - shift
			x := int64(c<<1) << 56 >> 57 // the low 7 bits, sign-extended
			if c&0x80 != 0 || x < -(1<<(rem-1)) || x >= 1<<(rem-1) {
				r.fail(fmt.Errorf("malformed %d-bit integer at offset %d", bits, r.pos))
				return 0
			}
		}
		v |= int64(c&0x7f) << shift
		if c&0x80 == 0 {
			if shift+7 < 64 && c&0x40 != 0 {
				v |= -1 << (shift + 7)
			}
			return v
		}
	}
}

func (r *reader) u32() uint32 { return uint32(r.uleb(32)) }

// name reads a length-prefixed name, returning it and its raw bytes.
func (r *reader) name() (string, []byte) {
	start := r.pos
	n := r.u32()
	b := r.bytes(int(n))
	if r.err != nil {
		return "", nil
	}
	return string(b), r.b[start:r.pos]
}

func appendU32(out []byte, v uint32) []byte { return appendU64(out, uint64(v)) }

func appendU64(out []byte, v uint64) []byte {
	for {
		c := byte(v & 0x7f)
		v >>= 7
		if v != 0 {
			c |= 0x80
		}
		out = append(out, c)
		if v == 0 {
			return out
		}
	}
}

func appendS64(out []byte, v int64) []byte {
	for {
		c := byte(v & 0x7f)
		v >>= 7
		if (v == 0 && c&0x40 == 0) || (v == -1 && c&0x40 != 0) {
			return append(out, c)
		}
		out = append(out, c|0x80)
	}
}

func appendName(out []byte, s string) []byte {
	out = appendU32(out, uint32(len(s)))
	return append(out, s...)
}

// skipType reads a function type and returns its parameter count.
func skipType(r *reader) (uint32, error) {
	if form := r.byte(); form != 0x60 {
		return 0, fmt.Errorf("type form 0x%x is not a function type", form)
	}
	params := r.u32()
	r.bytes(int(params))
	results := r.u32()
	r.bytes(int(results))
	return params, r.err
}

func skipLimits(r *reader) {
	flags := r.byte()
	r.u32()
	if flags&1 != 0 {
		r.u32()
	}
	if flags > 3 {
		r.fail(fmt.Errorf("limits flags 0x%x not supported", flags))
	}
}

func skipTableType(r *reader) {
	r.byte()
	skipLimits(r)
}
