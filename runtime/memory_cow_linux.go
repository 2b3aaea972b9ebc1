package runtime

import (
	"fmt"
	"sync"
	"syscall"
	"unsafe"

	"github.com/tetratelabs/wazero/experimental"
	"golang.org/x/sys/unix"
)

// cowImage is an image's memory in a sealed memfd: every instance maps it
// copy-on-write (MAP_PRIVATE) over the start of its memory's reservation,
// so a new instance costs one mmap, shares every page it only reads with
// the others, and pays for a page (a copy, at the first write) only when
// it writes there (RATIONALE.md, "Why are images copied where there are
// huge pages, and mapped copy-on-write where there are none?").
//
// The seals (write, grow, shrink, seal) make the memfd immutable for
// everyone, this host included: nothing an instance writes reaches the
// image or another instance. view is the same memfd mapped read-only,
// shared: the copies of the fallback (copyImage) read from it, so the
// image's bytes are held once, in the memfd, not also on the Go heap.
type cowImage struct {
	mu   sync.RWMutex
	fd   int // -1 once released
	size uint64
	view []byte

	// hot lists the pages the first instances wrote (learnt at their
	// close): a new instance has them made its own at once, in one
	// madvise, rather than one page fault at a time during its call.
	hot hotPages
}

// newCowImage puts an image of size bytes, zeros but for runs, into a
// sealed memfd. The zeros are holes: they take no memory.
func newCowImage(size uint64, runs []imageRun) (_ *cowImage, err error) {
	fd, err := unix.MemfdCreate("wasmagent-image", unix.MFD_CLOEXEC|unix.MFD_ALLOW_SEALING)
	if err != nil {
		return nil, fmt.Errorf("memfd_create: %w", err)
	}
	defer func() {
		if err != nil {
			unix.Close(fd)
		}
	}()
	if err := unix.Ftruncate(fd, int64(size)); err != nil {
		return nil, fmt.Errorf("ftruncate: %w", err)
	}
	for _, r := range runs {
		for b, off := r.data, int64(r.off); len(b) > 0; {
			n, err := unix.Pwrite(fd, b, off)
			if err != nil {
				return nil, fmt.Errorf("pwrite: %w", err)
			}
			b, off = b[n:], off+int64(n)
		}
	}
	const seals = unix.F_SEAL_WRITE | unix.F_SEAL_GROW | unix.F_SEAL_SHRINK | unix.F_SEAL_SEAL
	if _, err := unix.FcntlInt(uintptr(fd), unix.F_ADD_SEALS, seals); err != nil {
		return nil, fmt.Errorf("sealing the memfd: %w", err)
	}
	view, err := unix.Mmap(fd, 0, int(size), unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		return nil, fmt.Errorf("mapping the memfd: %w", err)
	}
	return &cowImage{fd: fd, size: size, view: view}, nil
}

// mapMemory reserves limit bytes, as mapMemory does, with the image mapped
// copy-on-write over their start. It returns nil if the image was released
// or the system refuses.
func (c *cowImage) mapMemory(limit uint64) experimental.LinearMemory {
	if limit < c.size || limit > 1<<34 {
		return nil
	}
	c.mu.RLock()
	defer c.mu.RUnlock()
	if c.fd < 0 {
		return nil
	}
	b, err := syscall.Mmap(-1, 0, int(limit), syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON|syscall.MAP_NORESERVE)
	if err != nil {
		return nil
	}
	// Over the reservation's start, so that one munmap (Free) undoes both.
	_, _, errno := syscall.Syscall6(syscall.SYS_MMAP, uintptr(unsafe.Pointer(unsafe.SliceData(b))), uintptr(c.size),
		syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_FIXED, uintptr(c.fd), 0)
	if errno != 0 {
		syscall.Munmap(b)
		return nil
	}
	adviseHuge(b[c.size:]) // where the memory grows past the image
	c.hot.populate(b)
	learn := func(mem []byte) { c.hot.learn(mem[:c.size]) }
	return &mappedMemory{buf: b[:0], limit: limit, closing: learn}
}

// read calls f with the image's bytes, or returns false if the image was
// released.
func (c *cowImage) read(f func(view []byte)) bool {
	c.mu.RLock()
	defer c.mu.RUnlock()
	if c.fd < 0 {
		return false
	}
	f(c.view)
	return true
}

// release closes the memfd and unmaps the view; the instances that mapped
// the image keep their mappings until they are closed.
func (c *cowImage) release() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.fd < 0 {
		return
	}
	unix.Munmap(c.view)
	unix.Close(c.fd)
	c.fd, c.view = -1, nil
}
