package runtime

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"

	experimentalsys "github.com/tetratelabs/wazero/experimental/sys"
)

// What one call adds to its writable directory grants is counted against
// Grants.MaxDiskBytes and Grants.MaxNewFiles: the growth of files (the
// size after an operation less the size before, when positive: writes,
// writes past the end with their hole, fd_allocate, truncation upwards),
// the targets of the symbolic links it makes, and the files, directories
// and links it creates. The count only grows: shrinking or removing frees
// nothing, so the count bounds the most the grants held at any moment of
// the call, not only at its end. An operation that would go over is not
// done; the guest sees EDQUOT and may go on (RATIONALE.md, "Why is the
// disk a call fills capped, and how?").

// diskUse is what a call has added to its writable grants.
type diskUse struct {
	bytes   int64
	entries int
	// refused is the call's first refusal, for its error and the log.
	refused *CapError
}

// chargeBytes counts n more bytes added by what, or refuses them.
func (st *callState) chargeBytes(w *mount, n int64, what string) experimentalsys.Errno {
	limit := st.p.grants.MaxDiskBytes
	if n <= 0 {
		return 0
	}
	if n > limit-st.disk.bytes {
		return st.refuseDisk(&CapError{Cap: "MaxDiskBytes", Limit: limit,
			Detail: fmt.Sprintf("%s in the directory grant %s (host %s) would add %d bytes to the %d this call added", what, w.guest, w.root.root.Name(), n, st.disk.bytes)})
	}
	st.disk.bytes += n
	return 0
}

// chargeEntry counts one more file, directory or link created by what,
// or refuses it; undo gives it back if the creation then fails.
func (st *callState) chargeEntry(w *mount, what string) experimentalsys.Errno {
	limit := st.p.grants.MaxNewFiles
	if st.disk.entries >= limit {
		return st.refuseDisk(&CapError{Cap: "MaxNewFiles", Limit: int64(limit),
			Detail: fmt.Sprintf("%s in the directory grant %s (host %s) would create one more file, directory or link than the %d this call created", what, w.guest, w.root.root.Name(), st.disk.entries)})
	}
	st.disk.entries++
	return 0
}

func (st *callState) undoEntry() { st.disk.entries-- }

// noteRefusal adds the call's first disk refusal, if any, to its error.
func (st *callState) noteRefusal(err error) {
	var ce *CallError
	if st.disk.refused != nil && errors.As(err, &ce) {
		ce.Refused = st.disk.refused
	}
}

// refuseDisk records a refusal: the first of the call is logged (a loop
// of refused writes must not flood the log) and kept for its error.
func (st *callState) refuseDisk(e *CapError) experimentalsys.Errno {
	e.Detail = truncate(e.Detail, MaxMessageBytes)
	st.wasiErrno = wasiEDQUOT
	if st.disk.refused == nil {
		st.disk.refused = e
		st.p.r.log.Warn("runtime: a file operation was refused, over the call's disk cap", "plugin", st.p.name, "error", e.Error())
	}
	return experimentalsys.EIO // made EDQUOT by wasiGuard
}

// Mkdir, Symlink and Link count what they create in a writable grant.
// The name is looked at first: an existing one is not counted, and fails
// with EEXIST, as without the cap.

func (s stopFS) Mkdir(p string, perm fs.FileMode) experimentalsys.Errno {
	return s.created(p, "path_create_directory", func() experimentalsys.Errno { return s.FS.Mkdir(p, perm) })
}

func (s stopFS) Symlink(target, link string) experimentalsys.Errno {
	s.st.enter()
	if s.w == nil || s.exists(link) {
		return s.FS.Symlink(target, link)
	}
	if e := s.st.chargeEntry(s.w, "path_symlink "+link); e != 0 {
		return e
	}
	before := s.st.disk.bytes
	e := s.st.chargeBytes(s.w, int64(len(target)), "path_symlink "+link)
	if e == 0 {
		e = s.FS.Symlink(target, link)
	}
	if e != 0 {
		s.st.undoEntry()
		s.st.disk.bytes = before
	}
	return e
}

func (s stopFS) Link(oldPath, newPath string) experimentalsys.Errno {
	return s.created(newPath, "path_link", func() experimentalsys.Errno { return s.FS.Link(oldPath, newPath) })
}

// created counts the entry op makes at p (what names the operation in
// a refusal), unless p exists, and gives it back if op fails.
func (s stopFS) created(p, what string, op func() experimentalsys.Errno) experimentalsys.Errno {
	s.st.enter()
	if s.w == nil || s.exists(p) {
		return op()
	}
	if e := s.st.chargeEntry(s.w, what+" "+p); e != 0 {
		return e
	}
	e := op()
	if e != 0 {
		s.st.undoEntry()
	}
	return e
}

// creates says whether opening p with flag creates a file, and if so
// charges it (undo gives it back if the open fails). An existing path is
// not created (the open fails with O_EXCL, as without the cap); a
// dangling link is, without O_EXCL (the open creates its target); a path
// that cannot be looked at is counted.
func (s stopFS) creates(p string, flag experimentalsys.Oflag) (bool, experimentalsys.Errno) {
	if s.w == nil || flag&experimentalsys.O_CREAT == 0 {
		return false, 0
	}
	if flag&experimentalsys.O_EXCL != 0 {
		if s.exists(p) {
			return false, 0
		}
	} else if _, e := s.FS.Stat(p); e == 0 {
		return false, 0
	}
	if e := s.st.chargeEntry(s.w, "path_open "+p); e != 0 {
		return false, e
	}
	return true, 0
}

// exists says whether p names something, a link included: creating it
// fails with EEXIST, as without the cap, and is not counted. (A path
// that cannot be looked at is counted: creating it fails anyway, or it
// is created.) A path removed between this look and its creation (by a
// call running at once) is created without being counted, but only in
// place of what was removed.
func (s stopFS) exists(p string) bool {
	_, e := s.FS.Lstat(p)
	return e == 0
}

// growth is what an operation on a file was charged: the file's size
// and where the operation lands, before it ran.
type growth struct {
	size, off, charged int64
}

// grow charges what writing n bytes at off (appending: at the end) adds
// to the file, before it is written.
func (f stopFile) grow(off, n int64, appending bool, what string) (growth, experimentalsys.Errno) {
	if n <= 0 || off < 0 {
		return growth{}, 0 // nothing added, or the operation fails by itself
	}
	st, e := f.File.Stat()
	if e != 0 {
		return growth{}, e
	}
	if appending {
		off = st.Size
	}
	end := off + n
	if end < off {
		end = math.MaxInt64
	}
	g := growth{size: st.Size, off: off, charged: max(0, end-st.Size)}
	return g, f.st.chargeBytes(f.w, g.charged, what+" "+f.name)
}

// settle gives back what an operation was charged beyond what it did:
// all of it if it failed, the rest of a short write.
func (f stopFile) settle(g growth, done int64, e experimentalsys.Errno) {
	did := int64(0)
	if e == 0 {
		did = max(0, min(g.charged, g.off+done-g.size))
	}
	f.st.disk.bytes -= g.charged - did
}

// position is where the next Write lands (appending: at the end).
func (f stopFile) position() (int64, bool, experimentalsys.Errno) {
	if f.appending {
		return 0, true, 0
	}
	off, e := f.File.Seek(0, io.SeekCurrent)
	return off, false, e
}

func (f stopFile) Write(b []byte) (int, experimentalsys.Errno) {
	f.st.enter()
	if f.w == nil || len(b) == 0 {
		return f.File.Write(b)
	}
	off, appending, e := f.position()
	if e != 0 {
		return 0, e
	}
	g, e := f.grow(off, int64(len(b)), appending, "fd_write")
	if e != 0 {
		return 0, e
	}
	n, e := f.File.Write(b)
	f.settle(g, int64(n), e)
	return n, e
}

func (f stopFile) Pwrite(b []byte, off int64) (int, experimentalsys.Errno) {
	f.st.enter()
	if f.w == nil || f.appending {
		// (A file open for appending refuses pwrite: nothing is added.)
		return f.File.Pwrite(b, off)
	}
	g, e := f.grow(off, int64(len(b)), false, "fd_pwrite")
	if e != 0 {
		return 0, e
	}
	n, e := f.File.Pwrite(b, off)
	f.settle(g, int64(n), e)
	return n, e
}

// Truncate is fd_filestat_set_size and fd_allocate.
func (f stopFile) Truncate(size int64) experimentalsys.Errno {
	f.st.enter()
	if f.w == nil {
		return f.File.Truncate(size)
	}
	g, e := f.grow(0, size, false, "fd_filestat_set_size or fd_allocate")
	if e != 0 {
		return e
	}
	e = f.File.Truncate(size)
	f.settle(g, size, e)
	return e
}
