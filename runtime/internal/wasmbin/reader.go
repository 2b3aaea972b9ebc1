package wasmbin

import (
	"errors"
	"fmt"
)

// Reader decodes the WebAssembly binary format. The first error sticks:
// later reads return zero values, and callers check Err once.
type Reader struct {
	B   []byte
	Pos int
	Err error
}

// ErrEOF is the error of a read past the end of the data.
var ErrEOF = errors.New("unexpected end of data")

// NewReader reads b from its start.
func NewReader(b []byte) *Reader { return &Reader{B: b} }

// More reports whether there is data left and no error.
func (r *Reader) More() bool { return r.Err == nil && r.Pos < len(r.B) }

// Fail records err unless an error is already recorded.
func (r *Reader) Fail(err error) {
	if r.Err == nil {
		r.Err = err
	}
}

// Byte reads one byte.
func (r *Reader) Byte() byte {
	if r.Err != nil {
		return 0
	}
	if r.Pos >= len(r.B) {
		r.Fail(ErrEOF)
		return 0
	}
	c := r.B[r.Pos]
	r.Pos++
	return c
}

// Peek returns the next byte without reading it (0 at the end).
func (r *Reader) Peek() byte {
	if r.Err != nil || r.Pos >= len(r.B) {
		return 0
	}
	return r.B[r.Pos]
}

// Bytes reads n bytes; the result aliases the input.
func (r *Reader) Bytes(n int) []byte {
	if r.Err != nil {
		return nil
	}
	if n < 0 || n > len(r.B)-r.Pos {
		r.Fail(ErrEOF)
		return nil
	}
	b := r.B[r.Pos : r.Pos+n]
	r.Pos += n
	return b
}

// Rest reads everything that is left.
func (r *Reader) Rest() []byte {
	if r.Err != nil {
		return nil
	}
	b := r.B[r.Pos:]
	r.Pos = len(r.B)
	return b
}

// Uleb reads an unsigned LEB128 of at most bits bits. Encodings the spec
// forbids (too long, unused bits set) are errors: re-encoding them would
// turn an invalid module into a valid one.
func (r *Reader) Uleb(bits uint) uint64 {
	var v uint64
	for shift := uint(0); ; shift += 7 {
		c := r.Byte()
		if r.Err != nil {
			return 0
		}
		if shift+7 > bits && (c&0x80 != 0 || uint64(c) >= 1<<(bits-shift)) {
			r.Fail(fmt.Errorf("malformed %d-bit integer at offset %d", bits, r.Pos))
			return 0
		}
		v |= uint64(c&0x7f) << shift
		if c&0x80 == 0 {
			return v
		}
	}
}

// Sleb reads a signed LEB128 of at most bits bits, as strictly.
func (r *Reader) Sleb(bits uint) int64 {
	var v int64
	for shift := uint(0); ; shift += 7 {
		c := r.Byte()
		if r.Err != nil {
			return 0
		}
		if shift+7 > bits {
			rem := bits - shift
			x := int64(c<<1) << 56 >> 57 // the low 7 bits, sign-extended
			if c&0x80 != 0 || x < -(1<<(rem-1)) || x >= 1<<(rem-1) {
				r.Fail(fmt.Errorf("malformed %d-bit integer at offset %d", bits, r.Pos))
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

// U32 reads an unsigned 32-bit LEB128.
func (r *Reader) U32() uint32 { return uint32(r.Uleb(32)) }

// Name reads a length-prefixed name, returning it and its raw bytes.
func (r *Reader) Name() (string, []byte) {
	start := r.Pos
	n := r.U32()
	b := r.Bytes(int(n))
	if r.Err != nil {
		return "", nil
	}
	return string(b), r.B[start:r.Pos]
}
