//go:build linux || darwin

package runtime

import (
	"syscall"

	"github.com/tetratelabs/wazero/experimental"
)

// mmapThreshold is the size up to which a memory lives on the Go heap. A
// small module's memory (64 KiB) and most calls' host memory stay there,
// where they cost no system call and no page fault; a memory that starts
// or grows past it is moved, once, to a mapping (RATIONALE.md, "Why do
// memories move to a mapping past 1 MiB?").
const mmapThreshold = 1 << 20

// allocate makes a memory that never holds more than limit bytes, nor,
// while it grows, more than limit + mmapThreshold.
func allocate(capacity, limit uint64) experimental.LinearMemory {
	if limit == 0 || limit > 1<<34 {
		return &cappedMemory{limit: limit, capHint: capacity}
	}
	if capacity >= mmapThreshold {
		if m := mapMemory(limit); m != nil {
			return m
		}
		return &cappedMemory{limit: limit, capHint: capacity}
	}
	return &smallMemory{heap: cappedMemory{limit: min(limit, mmapThreshold), capHint: capacity}, limit: limit}
}

// mappedMemory is a linear memory in an anonymous mapping of its whole
// limit, reserved, not committed: pages cost memory only once touched, the
// Go garbage collector neither scans nor zeroes it, and growing it never
// copies.
type mappedMemory struct {
	buf   []byte
	limit uint64
	// high is the most bytes the memory ever held: past it, the mapping
	// is still zeros.
	high uint64
	// closing, if set, sees the memory (its whole reservation) before it
	// is unmapped.
	closing func(mem []byte)
	// recycle, if set, may keep the mapping for another instance instead
	// of unmapping it (it reports whether it did).
	recycle func(*mappedMemory) bool
}

// mapMemory maps limit bytes, or returns nil if the system refuses.
func mapMemory(limit uint64) *mappedMemory {
	b, err := syscall.Mmap(-1, 0, int(limit), syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON|mapNoReserve)
	if err != nil {
		return nil
	}
	adviseHuge(b)
	return &mappedMemory{buf: b[:0], limit: limit}
}

func (m *mappedMemory) Reallocate(size uint64) []byte {
	if size > m.limit || m.buf == nil {
		return nil
	}
	m.buf = m.buf[:size]
	m.high = max(m.high, size)
	return m.buf
}

func (m *mappedMemory) Free() {
	if m.recycle != nil && m.buf != nil && m.recycle(m) {
		return
	}
	m.unmap()
}

// unmap returns the mapping to the system.
func (m *mappedMemory) unmap() {
	if m.buf != nil {
		if m.closing != nil {
			m.closing(m.buf[:m.limit])
		}
		syscall.Munmap(m.buf[:m.limit])
		m.buf = nil
	}
}

// smallMemory starts on the Go heap and moves to a mapping when it grows
// past mmapThreshold: growth on the heap copies, and the old and the new
// buffer of a large memory together would hold up to twice its limit.
type smallMemory struct {
	heap   cappedMemory
	mapped *mappedMemory
	limit  uint64
}

func (m *smallMemory) Reallocate(size uint64) []byte {
	switch {
	case m.mapped != nil:
		return m.mapped.Reallocate(size)
	case size <= m.heap.limit:
		return m.heap.Reallocate(size)
	case size > m.limit:
		return nil
	}
	mm := mapMemory(m.limit)
	if mm == nil {
		// No mapping to be had: grow on the heap, within the limit.
		m.heap.limit = m.limit
		return m.heap.Reallocate(size)
	}
	b := mm.Reallocate(size)
	copy(b, m.heap.buf)
	m.heap.buf, m.mapped = nil, mm
	return b
}

func (m *smallMemory) Free() {
	if m.mapped != nil {
		m.mapped.Free()
	}
	m.heap.Free()
}
