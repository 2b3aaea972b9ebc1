package runtime

import (
	"encoding/binary"
	"os"
	"sync"
	"sync/atomic"
	"unsafe"

	"golang.org/x/sys/unix"
)

// hotPages learns which pages of a copy-on-write image the instances
// write, and has every new instance's copies of them made up front.
//
// A page an instance writes costs a copy-on-write fault at its first
// write; on a small VM a fault costs about 100 µs, and a Go plugin's call
// writes some fifty pages of its image. MADV_POPULATE_WRITE makes the
// same copies inside one system call, at about 1.5 µs a page, and for a
// pooled instance before its call (RATIONALE.md, "Why are images mapped
// copy-on-write?"). The pages are learnt from /proc/self/pagemap when the
// first learnCloses instances close: a page of the mapping that is now
// anonymous memory, not the memfd's, was written. Where pagemap cannot be
// read, or the kernel has no MADV_POPULATE_WRITE (before 5.14), pages
// fault in one at a time, as they would without this.
type hotPages struct {
	mu      sync.Mutex
	seen    [2][]uint64 // bitmaps of the pages written and read, learnt so far
	learnt  int         // closes learnt from
	ranges  atomic.Pointer[[2][]pageRange]
	refused atomic.Bool // populate failed: not tried again
}

// pageRange is [start, end) in bytes from the memory's start.
type pageRange struct{ start, end uint64 }

// learnCloses is how many closed instances are learnt from: enough for the
// pages every call writes (the Go runtime's own, the call's stack and
// first allocations), few enough that one unusual call does not make all
// later instances hold its pages.
const learnCloses = 8

const hostPage = 4096

// populate makes mem's hot pages its own.
func (h *hotPages) populate(mem []byte) {
	rs := h.ranges.Load()
	if rs == nil || h.refused.Load() {
		return
	}
	for k, advice := range [2]int{unix.MADV_POPULATE_WRITE, unix.MADV_POPULATE_READ} {
		for _, r := range rs[k] {
			if r.end > uint64(len(mem)) {
				break
			}
			if err := unix.Madvise(mem[r.start:r.end], advice); err != nil {
				h.refused.Store(true)
				return
			}
		}
	}
}

// learn records the pages of mem, a closing instance's reservation, that
// are the instance's own: written by it, or populated for it.
func (h *hotPages) learn(mem []byte) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.learnt >= learnCloses {
		return
	}
	h.learnt++
	used, ok := usedPages(mem)
	if !ok {
		h.learnt = learnCloses // no pagemap: nothing to learn
		return
	}
	var rs [2][]pageRange
	for k := range used {
		if len(h.seen[k]) < len(used[k]) {
			h.seen[k] = append(h.seen[k], make([]uint64, len(used[k])-len(h.seen[k]))...)
		}
		for i, w := range used[k] {
			h.seen[k][i] |= w
		}
	}
	for k, seen := range h.seen {
		for p := uint64(0); p < uint64(len(seen))*64; p++ {
			if seen[p/64]&(1<<(p%64)) == 0 || k == 1 && p/64 < uint64(len(h.seen[0])) && h.seen[0][p/64]&(1<<(p%64)) != 0 {
				continue // not used, or read but also written
			}
			off := p * hostPage
			if n := len(rs[k]); n > 0 && rs[k][n-1].end == off {
				rs[k][n-1].end += hostPage
			} else {
				rs[k] = append(rs[k], pageRange{off, off + hostPage})
			}
		}
	}
	h.ranges.Store(&rs)
}

// pagemap is /proc/self/pagemap, opened once (nil: unreadable).
var pagemap = sync.OnceValue(func() *os.File {
	f, err := os.Open("/proc/self/pagemap")
	if err != nil {
		return nil
	}
	return f
})

// Bits of a /proc/self/pagemap entry (the kernel's
// Documentation/admin-guide/mm/pagemap.rst).
const (
	pmPresent = 1 << 63
	pmFile    = 1 << 61 // a file page or shared anonymous
)

// usedPages returns bitmaps of the pages of mem, a private mapping of a
// file, that are present and anonymous (written: the process's own
// copies) and present and the file's (only read). It reads the pages'
// entries in chunks, up to the last one present.
func usedPages(mem []byte) (used [2][]uint64, ok bool) {
	f := pagemap()
	if f == nil || len(mem) == 0 {
		return used, false
	}
	base := uint64(uintptr(unsafe.Pointer(unsafe.SliceData(mem)))) / hostPage
	pages := uint64(len(mem)) / hostPage
	buf := make([]byte, 8*512)
	absent := 0
	for p := uint64(0); p < pages; p += 512 {
		n := min(512, pages-p)
		if _, err := f.ReadAt(buf[:8*n], int64(8*(base+p))); err != nil {
			return used, false
		}
		any := false
		for i := range n {
			e := binary.LittleEndian.Uint64(buf[8*i:])
			if e&pmPresent == 0 {
				continue
			}
			k, q := 0, p+i
			if e&pmFile != 0 {
				k = 1
			}
			for uint64(len(used[k])) <= q/64 {
				used[k] = append(used[k], 0)
			}
			used[k][q/64] |= 1 << (q % 64)
			any = true
		}
		// Stop after 8 MiB with nothing of the instance's own: the rest
		// of the reservation was never reached.
		if absent++; any {
			absent = 0
		} else if absent == 4 {
			break
		}
	}
	return used, true
}
