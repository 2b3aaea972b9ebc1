package runtime

import "github.com/tetratelabs/wazero/experimental"

// memoryCap is a wazero memory allocator that refuses to grow a linear
// memory past a plugin's grant: memory.grow then returns -1, as it does at
// the module's own maximum. (wazero's own limit is per Runtime; this makes
// it per plugin.)
type memoryCap struct{ limit uint64 }

func (a memoryCap) Allocate(capacity, max uint64) experimental.LinearMemory {
	return allocate(min(capacity, a.limit), min(a.limit, max))
}

type cappedMemory struct {
	buf     []byte
	limit   uint64
	capHint uint64
}

func (m *cappedMemory) Reallocate(size uint64) []byte {
	if size > m.limit {
		return nil
	}
	if size <= uint64(cap(m.buf)) {
		m.buf = m.buf[:size]
		return m.buf
	}
	// Grow geometrically within the limit, as append would.
	c := max(size, m.capHint, min(2*uint64(cap(m.buf)), m.limit))
	nb := make([]byte, size, c)
	copy(nb, m.buf)
	m.buf = nb
	return m.buf
}

func (m *cappedMemory) Free() { m.buf = nil }
