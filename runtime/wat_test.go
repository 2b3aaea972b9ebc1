package runtime_test

import (
	"slices"

	"github.com/wasmagent/wasmagent/internal/wasmbuild"
)

// Instruction helpers for the hand-assembled modules of the containment
// tests (wasmbuild.Module holds them).

func ops(parts ...[]byte) []byte { return slices.Concat(parts...) }

func i32c(v int64) []byte  { return append([]byte{0x41}, wasmbuild.SLEB(v)...) }
func i64c(v int64) []byte  { return append([]byte{0x42}, wasmbuild.SLEB(v)...) }
func call(f uint32) []byte { return append([]byte{0x10}, wasmbuild.ULEB(f)...) }
func lget(i byte) []byte   { return []byte{0x20, i} }
func lset(i byte) []byte   { return []byte{0x21, i} }
func forever(body ...[]byte) []byte {
	return ops([]byte{0x03, 0x40}, ops(body...), []byte{0x0c, 0x00, 0x0b})
}

var (
	opDrop   = []byte{0x1a}
	opReturn = []byte{0x0f}
	opTrap   = []byte{0x00}
)

// withSection inserts a section (id, content) into a module at its place
// in the section order.
func withSection(wasm []byte, id byte, content []byte) []byte {
	rank := func(id byte) int {
		switch id {
		case 12:
			return 10 // data count: between element and code
		case 10, 11:
			return int(id) + 1
		}
		return int(id)
	}
	sec := append([]byte{id}, wasmbuild.ULEB(uint32(len(content)))...)
	sec = append(sec, content...)
	at := 8
	for at < len(wasm) {
		n, w := uleb(wasm[at+1:])
		if rank(wasm[at]) > rank(id) {
			break
		}
		at += 1 + w + int(n)
	}
	return slices.Concat(wasm[:at], sec, wasm[at:])
}

// sections splits a module into its sections (each with its header).
func sections(wasm []byte) [][]byte {
	var out [][]byte
	for at := 8; at < len(wasm); {
		n, w := uleb(wasm[at+1:])
		end := min(len(wasm), at+1+w+int(n))
		out = append(out, wasm[at:end])
		at = end
	}
	return out
}

func uleb(b []byte) (uint32, int) {
	var v uint32
	for i, c := range b {
		if i == 5 {
			return v, i
		}
		v |= uint32(c&0x7f) << (7 * i)
		if c&0x80 == 0 {
			return v, i + 1
		}
	}
	return v, len(b)
}

// limits is the content of a memory or table section of one entry.
func memorySection(min uint32) []byte {
	return slices.Concat([]byte{1, 0}, wasmbuild.ULEB(min))
}

func tableSection(min uint32) []byte {
	return slices.Concat([]byte{1, 0x70, 0}, wasmbuild.ULEB(min))
}
