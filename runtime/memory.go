package runtime

import "github.com/tetratelabs/wazero/experimental"

// memoryCap is a wazero memory allocator that refuses to grow a linear
// memory past a plugin's grant: memory.grow then returns -1, as it does at
// the module's own maximum. (wazero's own limit is per Runtime; this makes
// it per plugin.) One memoryCap serves one instantiation.
//
// A memory whose initial size is over the grant cannot be refused by the
// allocator (wazero requires the initial size and panics without it), so
// Allocate records it and Reallocate returns nil; instantiate recovers the
// panic and reports over. Compile refuses such modules before that.
type memoryCap struct {
	limit uint64
	over  uint64 // the initial size of a memory over limit, in bytes
	hint  uint64 // the size the memory will grow to at once (an image's)
	// cow, if set, is the image to map copy-on-write at the start of the
	// memory; reuse, if set, the image whose spare memories (reset to it)
	// may be taken, and to which the new memory is given back at close.
	// mapped reports that the memory holds the image already.
	cow    *cowImage
	reuse  *image
	mapped bool
}

func (a *memoryCap) Allocate(capacity, maxBytes uint64) experimental.LinearMemory {
	if capacity > a.limit {
		a.over = max(a.over, capacity)
		return &cappedMemory{limit: a.limit} // nothing reserved: refused
	}
	if a.cow != nil {
		if m := a.cow.mapMemory(min(a.limit, maxBytes)); m != nil {
			a.mapped = true
			return m
		}
	}
	if a.reuse != nil {
		if m := a.reuse.takeSpare(min(a.limit, maxBytes)); m != nil {
			a.mapped = true
			return m
		}
	}
	lm := allocate(max(capacity, min(a.hint, a.limit)), min(a.limit, maxBytes))
	if a.reuse != nil {
		a.reuse.recycling(lm)
	}
	return lm
}

// cappedMemory is a linear memory on the Go heap, for systems without
// anonymous mappings and for limits too large to reserve.
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
