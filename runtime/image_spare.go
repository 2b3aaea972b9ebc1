//go:build linux || darwin

package runtime

import (
	"github.com/tetratelabs/wazero/experimental"

	imagepkg "github.com/wasmagent/wasmagent/runtime/internal/image"
)

// Spare memories: an image instance's mapping, when the instance closes,
// is reset to the image and kept for the plugin's next instance, which
// then needs no copy, no page faults (its huge pages are in place) and no
// mmap; the closing instance's munmap is saved too. The reset is done at
// close, off the call's path: every byte the instance could have reached
// (up to the most its memory held) is rewritten, the image's pages with
// the image and the rest with zeros (TestImageMemoryIsTheImage writes
// every byte and checks the next instance). At most maxSpares mappings
// wait per plugin; they are unmapped when the plugin is closed.
const maxSpares = 1

// takeSpare returns a spare memory of limit bytes holding the image, or
// nil.
func (img *image) takeSpare(limit uint64) experimental.LinearMemory {
	select {
	case m := <-img.spares:
		if m.limit == limit {
			m.recycle = img.recycle
			return m
		}
		m.unmap()
	default:
	}
	return nil
}

// recycling has lm, a new memory for an instance of img, kept as a spare
// when its instance closes, if it is a mapping.
func (img *image) recycling(lm experimental.LinearMemory) {
	if m, ok := lm.(*mappedMemory); ok {
		m.recycle = img.recycle
	}
}

// recycle resets m to the image and keeps it, if there is room for it.
func (img *image) recycle(m *mappedMemory) bool {
	if len(img.spares) == cap(img.spares) || img.released.Load() {
		return false
	}
	size := uint64(img.pages) * imagepkg.PageSize
	if m.limit < size || m.high > size+maxSpareGrowth {
		return false
	}
	mem := m.buf[:max(m.high, size)]
	if err := img.copyOver(mem[:size]); err != nil {
		return false // released
	}
	clear(mem[size:])
	m.buf, m.high = m.buf[:0], size
	// A waiting spare does not point back to img (takeSpare sets it
	// again): the cleanup that drains the spares of a plugin collected
	// without Close could otherwise never run, the spares keeping img
	// reachable from its own cleanup's argument.
	m.recycle = nil
	select {
	case img.spares <- m:
		if img.released.Load() {
			img.dropSpares() // released meanwhile: not kept
		}
		return true
	default:
		return false
	}
}

// dropSpares unmaps the spare memories.
func (img *image) dropSpares() { drainSpares(img.spares) }

// drainSpares unmaps the memories waiting in spares.
func drainSpares(spares chan *mappedMemory) {
	for {
		select {
		case m := <-spares:
			m.unmap()
		default:
			return
		}
	}
}
