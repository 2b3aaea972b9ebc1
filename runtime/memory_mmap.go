//go:build linux || darwin

package runtime

import (
	"syscall"

	"github.com/tetratelabs/wazero/experimental"
)

// mappedMemory is a linear memory in an anonymous mapping of its whole
// limit, reserved, not committed: pages cost memory only once touched, the
// Go garbage collector neither scans nor zeroes it, and growing it never
// copies. Every memory is mapped, whatever its initial size: on the Go
// heap, growth copies, and the old and the new buffer together would hold
// up to twice the grant (RATIONALE.md, "Why map every linear memory?").
type mappedMemory struct {
	buf   []byte
	limit uint64
}

func allocate(capacity, limit uint64) experimental.LinearMemory {
	if limit == 0 || limit > 1<<34 {
		return &cappedMemory{limit: limit, capHint: capacity}
	}
	b, err := syscall.Mmap(-1, 0, int(limit), syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON|mapNoReserve)
	if err != nil {
		return &cappedMemory{limit: limit, capHint: capacity}
	}
	return &mappedMemory{buf: b[:0], limit: limit}
}

func (m *mappedMemory) Reallocate(size uint64) []byte {
	if size > m.limit || m.buf == nil {
		return nil
	}
	m.buf = m.buf[:size]
	return m.buf
}

func (m *mappedMemory) Free() {
	if m.buf != nil {
		syscall.Munmap(m.buf[:m.limit])
		m.buf = nil
	}
}
