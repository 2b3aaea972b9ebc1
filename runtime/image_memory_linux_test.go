package runtime

import (
	"slices"
	"testing"

	"golang.org/x/sys/unix"
)

// cowChanges tries every way of changing c's memfd and returns what each
// returned.
func cowChanges(c *cowImage) []error {
	_, werr := unix.Pwrite(c.fd, []byte{1}, 0)
	_, merr := unix.Mmap(c.fd, 0, int(c.size), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
	terr := unix.Ftruncate(c.fd, int64(c.size)+hostPage)
	_, serr := unix.FcntlInt(uintptr(c.fd), unix.F_ADD_SEALS, 0)
	return []error{werr, merr, terr, serr}
}

// checkLearntAll checks that p, whose instances wrote every byte, has
// learnt that all its image's pages are written (where it can learn).
func checkLearntAll(t *testing.T, p *Plugin) {
	if p.img.cow == nil || pagemap() == nil {
		return
	}
	rs := p.img.cow.hot.ranges.Load()
	if rs == nil || len(rs[0]) != 1 || rs[0][0] != (pageRange{0, p.img.cow.size}) {
		t.Errorf("every page of the image was written, the pages learnt are %v", rs)
	}
}

// testCow is a copy-on-write image of pages pages, page p holding byte p+1.
func testCow(t *testing.T, pages int) *cowImage {
	t.Helper()
	var runs []imageRun
	for p := range pages {
		data := make([]byte, hostPage)
		for i := range data {
			data[i] = byte(p + 1)
		}
		runs = append(runs, imageRun{off: uint32(p * hostPage), data: data})
	}
	c, err := newCowImage(uint64(pages*hostPage), runs)
	if err != nil {
		t.Skipf("no memfd: %v", err)
	}
	t.Cleanup(c.release)
	return c
}

// usedPages tells the pages an instance wrote from those it only read and
// those it never reached.
func TestUsedPages(t *testing.T) {
	if pagemap() == nil {
		t.Skip("/proc/self/pagemap cannot be read here")
	}
	c := testCow(t, 8)
	m := c.mapMemory(1 << 20)
	defer m.Free()
	mem := m.Reallocate(c.size)
	mem[1*hostPage+5] = 9     // written
	if mem[3*hostPage] != 4 { // read
		t.Fatalf("page 3 holds %d, want the image's 4", mem[3*hostPage])
	}
	used, ok := usedPages(mem)
	if !ok {
		t.Fatal("pagemap was not read")
	}
	if !used[0][1] || used[1][1] {
		t.Errorf("page 1, written: own %v, the file's %v", used[0][1], used[1][1])
	}
	if used[0][3] || !used[1][3] {
		t.Errorf("page 3, read: own %v, the file's %v", used[0][3], used[1][3])
	}
	// Page 6 was never touched; (fault-around may map the memfd's pages
	// near page 3: they count as read, never as written).
	if used[0][6] {
		t.Error("page 6, untouched, counts as written")
	}
}

// A page is hot once most instances learnt from wrote it: one instance
// writing everything does not make later instances hold every page; the
// pages populated are the image's, whatever the instances wrote.
func TestHotPagesMajority(t *testing.T) {
	if pagemap() == nil {
		t.Skip("/proc/self/pagemap cannot be read here")
	}
	c := testCow(t, 8)
	instance := func(write ...int) {
		m := c.mapMemory(1 << 20)
		mem := m.Reallocate(c.size)
		for _, p := range write {
			mem[p*hostPage] = 0xEE
		}
		m.Free() // learns
	}
	instance(0, 1, 2, 3, 4, 5, 6, 7) // unusual: everything
	for i := range learnCloses - 1 {
		if c.hot.ranges.Load() != nil {
			t.Fatalf("pages populated after %d instances, before the %d learnt from", i+1, learnCloses)
		}
		if i%2 == 1 {
			instance(2, 5)
		} else {
			instance(2)
		}
	}
	rs := c.hot.ranges.Load()
	if rs == nil {
		t.Fatal("nothing learnt")
	}
	if want := []pageRange{{2 * hostPage, 3 * hostPage}}; !slices.Equal(rs[0], want) {
		t.Errorf("hot written pages %v, want %v (page 2, written by all, not page 5, written by half)", rs[0], want)
	}
	m := c.mapMemory(1 << 20)
	defer m.Free()
	mem := m.Reallocate(c.size)
	for p := range 8 {
		if mem[p*hostPage] != byte(p+1) {
			t.Errorf("page %d of a new instance holds %#x, want the image's %#x", p, mem[p*hostPage], p+1)
		}
	}
	if used, _ := usedPages(mem); !used[0][2] {
		t.Error("page 2, hot, is not the new instance's own before it is written")
	}
}
