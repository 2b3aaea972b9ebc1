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
// pooled instance before its call; pages only read are mapped the same way
// (MADV_POPULATE_READ). The pages are learnt from /proc/self/pagemap when
// the first learnCloses instances close: a page of the mapping that is now
// anonymous memory, not the memfd's, was written; one that is the memfd's
// was read. Where pagemap cannot be read, or the kernel has no
// MADV_POPULATE_WRITE (before 5.14), pages fault in one at a time, as they
// would without this. (RATIONALE.md, "Why are images copied where there
// are huge pages, and mapped copy-on-write where there are none?")
type hotPages struct {
	mu      sync.Mutex
	counts  [2][]uint8 // per page of the image: how many instances wrote it, read it only
	learnt  int        // closes learnt from
	ranges  atomic.Pointer[[2][]pageRange]
	refused atomic.Bool // populate failed: not tried again
}

// pageRange is [start, end) in bytes from the memory's start.
type pageRange struct{ start, end uint64 }

const hostPage = 4096

// populate makes mem's hot pages its own: those most instances wrote are
// copied, those they only read are mapped.
func (h *hotPages) populate(mem []byte) {
	rs := h.ranges.Load()
	if rs == nil || h.refused.Load() {
		return
	}
	for k, advice := range [2]int{unix.MADV_POPULATE_WRITE, unix.MADV_POPULATE_READ} {
		for _, r := range rs[k] {
			if err := unix.Madvise(mem[r.start:r.end], advice); err != nil {
				h.refused.Store(true)
				return
			}
		}
	}
}

// learn records which pages of image, the image's part of a closing
// instance's memory, the instance wrote and read.
func (h *hotPages) learn(image []byte) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.learnt >= learnCloses {
		return
	}
	used, ok := usedPages(image)
	if !ok {
		h.learnt = learnCloses // no pagemap: nothing to learn
		return
	}
	h.learnt++
	var rs [2][]pageRange
	for k := range h.counts {
		if h.counts[k] == nil {
			h.counts[k] = make([]uint8, len(used[k]))
		}
		for p, u := range used[k] {
			if u {
				h.counts[k][p]++
			}
		}
	}
	if h.learnt < learnCloses {
		return
	}
	for p := range h.counts[0] {
		w, r := int(h.counts[0][p]), int(h.counts[1][p])
		k := 0
		switch {
		case 2*w > h.learnt:
		case 2*(w+r) > h.learnt:
			k = 1
		default:
			continue
		}
		off := uint64(p) * hostPage
		if n := len(rs[k]); n > 0 && rs[k][n-1].end == off {
			rs[k][n-1].end += hostPage
		} else {
			rs[k] = append(rs[k], pageRange{off, off + hostPage})
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

// usedPages reports, per page of mem (a private mapping of a file), whether
// it is present and anonymous (written: the process's own copy) and
// whether it is present and the file's (only read).
func usedPages(mem []byte) (used [2][]bool, ok bool) {
	f := pagemap()
	if f == nil {
		return used, false
	}
	base := uint64(uintptr(unsafe.Pointer(unsafe.SliceData(mem)))) / hostPage
	pages := len(mem) / hostPage
	buf := make([]byte, 8*pages)
	if _, err := f.ReadAt(buf, int64(8*base)); err != nil {
		return used, false
	}
	used = [2][]bool{make([]bool, pages), make([]bool, pages)}
	for p := range pages {
		e := binary.LittleEndian.Uint64(buf[8*p:])
		if e&pmPresent == 0 {
			continue
		}
		if e&pmFile != 0 {
			used[1][p] = true
		} else {
			used[0][p] = true
		}
	}
	return used, true
}
