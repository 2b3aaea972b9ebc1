package runtime

import (
	"errors"
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"
	"time"

	experimentalsys "github.com/tetratelabs/wazero/experimental/sys"
	"github.com/tetratelabs/wazero/experimental/sysfs"
	"github.com/tetratelabs/wazero/sys"
)

// rootFS serves a directory grant through an os.Root: every path is
// resolved by the kernel relative to the granted directory, and no
// symbolic link, "..", absolute path or race between a check and a use
// leads out of it (wazero's own directory mounts follow symbolic links
// anywhere). A plugin may create symbolic links only to relative targets
// without "..": see Symlink.
type rootFS struct {
	experimentalsys.UnimplementedFS
	root *os.Root
	// protected are the files the plugin may not change, and the
	// directories leading to them (Grants.Protected; protect.go).
	protected map[fileID]bool
}

// readOnlyFS is wazero's ReadFS, except that opening a file for writing
// fails with EROFS, as a Unix kernel says it ("read-only file system"),
// rather than ENOSYS ("not implemented"), so that the plugin can tell its
// user which grant is read-only.
type readOnlyFS struct{ sysfs.ReadFS }

func (r *readOnlyFS) OpenFile(p string, flag experimentalsys.Oflag, perm fs.FileMode) (experimentalsys.File, experimentalsys.Errno) {
	f, errno := r.ReadFS.OpenFile(p, flag, perm)
	if errno == experimentalsys.ENOSYS {
		errno = experimentalsys.EROFS
	}
	return f, errno
}

func newRootFS(dir string) (*rootFS, error) {
	r, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	return &rootFS{root: r}, nil
}

func errno(err error) experimentalsys.Errno {
	if err == nil {
		return 0
	}
	var pe *os.PathError
	if errors.As(err, &pe) && strings.Contains(pe.Err.Error(), "escapes") {
		return experimentalsys.EPERM // os.Root: "path escapes from parent"
	}
	if errors.Is(err, os.ErrPermission) {
		return experimentalsys.EPERM
	}
	return experimentalsys.UnwrapOSError(err)
}

// rel turns a guest path (relative to the mount) into one os.Root takes.
func rel(p string) string {
	p = strings.TrimPrefix(p, "/")
	if p == "" {
		return "."
	}
	return p
}

func (r *rootFS) OpenFile(p string, flag experimentalsys.Oflag, perm fs.FileMode) (experimentalsys.File, experimentalsys.Errno) {
	var f int
	switch flag & (experimentalsys.O_RDONLY | experimentalsys.O_RDWR | experimentalsys.O_WRONLY) {
	case experimentalsys.O_RDWR:
		f = os.O_RDWR
	case experimentalsys.O_WRONLY:
		f = os.O_WRONLY
	default:
		f = os.O_RDONLY
	}
	for _, m := range []struct {
		sys experimentalsys.Oflag
		os  int
	}{
		{experimentalsys.O_APPEND, os.O_APPEND}, {experimentalsys.O_CREAT, os.O_CREATE},
		{experimentalsys.O_EXCL, os.O_EXCL}, {experimentalsys.O_TRUNC, os.O_TRUNC},
		{experimentalsys.O_SYNC, os.O_SYNC}, {experimentalsys.O_NOFOLLOW, oNoFollow},
		{experimentalsys.O_DIRECTORY, oDirectory},
	} {
		if flag&m.sys != 0 {
			f |= m.os
		}
	}
	writes := f&(os.O_WRONLY|os.O_RDWR|os.O_APPEND|os.O_TRUNC) != 0
	trunc := r.protected != nil && f&os.O_TRUNC != 0
	if trunc {
		f &^= os.O_TRUNC // truncated below, once the file is known not protected
	}
	file, err := r.root.OpenFile(rel(p), f|oNonBlock, perm)
	if err == nil && writes && r.guardedFile(file) {
		file.Close()
		return nil, errProtected
	}
	if err == nil && trunc {
		if err = file.Truncate(0); err != nil {
			file.Close()
		}
	}
	if err != nil {
		if errNoDevice != nil && errors.Is(err, errNoDevice) {
			return nil, experimentalsys.EACCES
		}
		return nil, errno(err)
	}
	if errno := onlyFilesAndDirs(file); errno != 0 {
		file.Close()
		return nil, errno
	}
	return r.wrap(file, rel(p), flag)
}

// onlyFilesAndDirs refuses (EACCES) an opened file that is neither a
// regular file nor a directory: a named pipe, a socket or a device in a
// grant. Reading a pipe no one writes to, or a terminal, blocks in the
// kernel, where no deadline or abort reaches: the call would never end
// and its slot would never be freed. The file was opened without
// blocking (a pipe's open waits for a writer) and is judged by the
// descriptor itself, so no swap between a check and the open fools it.
func onlyFilesAndDirs(f *os.File) experimentalsys.Errno {
	fi, err := f.Stat()
	if err != nil {
		return errno(err)
	}
	if !fi.Mode().IsRegular() && !fi.IsDir() {
		return experimentalsys.EACCES
	}
	return 0
}

func (r *rootFS) Lstat(p string) (sys.Stat_t, experimentalsys.Errno) {
	fi, err := r.root.Lstat(rel(p))
	if err != nil {
		return sys.Stat_t{}, errno(err)
	}
	return sys.NewStat_t(fi), 0
}

func (r *rootFS) Stat(p string) (sys.Stat_t, experimentalsys.Errno) {
	fi, err := r.root.Stat(rel(p))
	if err != nil {
		return sys.Stat_t{}, errno(err)
	}
	return sys.NewStat_t(fi), 0
}

func (r *rootFS) Mkdir(p string, perm fs.FileMode) experimentalsys.Errno {
	return errno(r.root.Mkdir(rel(p), perm))
}

func (r *rootFS) Chmod(p string, perm fs.FileMode) experimentalsys.Errno {
	return errno(r.root.Chmod(rel(p), perm))
}

func (r *rootFS) Rename(from, to string) experimentalsys.Errno {
	if r.guarded(from) || r.guarded(to) {
		return errProtected
	}
	return errno(r.root.Rename(rel(from), rel(to)))
}

func (r *rootFS) Rmdir(p string) experimentalsys.Errno {
	fi, err := r.root.Lstat(rel(p))
	if err != nil {
		return errno(err)
	}
	if !fi.IsDir() {
		return experimentalsys.ENOTDIR
	}
	if r.guarded(p) {
		return errProtected
	}
	return errno(r.root.Remove(rel(p)))
}

func (r *rootFS) Unlink(p string) experimentalsys.Errno {
	fi, err := r.root.Lstat(rel(p))
	if err != nil {
		return errno(err)
	}
	if fi.IsDir() {
		return experimentalsys.EISDIR
	}
	if r.guarded(p) {
		return errProtected
	}
	return errno(r.root.Remove(rel(p)))
}

func (r *rootFS) Link(oldPath, newPath string) experimentalsys.Errno {
	return errno(r.root.Link(rel(oldPath), rel(newPath)))
}

// Symlink accepts only targets that lead down from the link's own
// directory: relative, with no ".." element. A lexical check of where a
// target lands is not enough, because links compose and directories move:
// "x" → "." then "y" → "x/.." is lexically the grant itself, but the
// kernel reads x as the grant and its ".." as the grant's parent; and
// "a/b/up" → "../../f" lands inside until the plugin renames a/b to b.
// Links that only go down lead, through any chain of them and wherever
// they are moved, below the directory that holds them, so inside.
func (r *rootFS) Symlink(target, link string) experimentalsys.Errno {
	if target == "" || path.IsAbs(target) || slices.Contains(strings.Split(target, "/"), "..") {
		return experimentalsys.EPERM
	}
	return errno(r.root.Symlink(target, rel(link)))
}

func (r *rootFS) Readlink(p string) (string, experimentalsys.Errno) {
	s, err := r.root.Readlink(rel(p))
	return s, errno(err)
}

func (r *rootFS) Utimens(p string, atim, mtim int64) experimentalsys.Errno {
	fi, err := r.root.Stat(rel(p))
	if err != nil {
		return errno(err)
	}
	// The file is judged as found, through any link: the times of a
	// protected file are the host's too (make and caches read them).
	if id, _ := idOf(fi); r.protected[id] {
		return errProtected
	}
	st := sys.NewStat_t(fi)
	if atim == experimentalsys.UTIME_OMIT {
		atim = st.Atim
	}
	if mtim == experimentalsys.UTIME_OMIT {
		mtim = st.Mtim
	}
	return errno(r.root.Chtimes(rel(p), timeOf(atim), timeOf(mtim)))
}

// rootFile is an open file of a rootFS: wazero's adapter around the
// *os.File the root opened (it provides reads, writes, seeks and directory
// listing, and rewinds directories by opening them again through the root),
// plus what the adapter leaves out.
type rootFile struct {
	experimentalsys.File
	fs   *rootFS
	f    *os.File
	path string
}

// wrap turns an *os.File opened through the root into a wazero file.
func (r *rootFS) wrap(f *os.File, p string, flag experimentalsys.Oflag) (experimentalsys.File, experimentalsys.Errno) {
	adapted, e := (&sysfs.AdaptFS{FS: &reopener{root: r.root, path: p, first: f}}).OpenFile(p, flag&^(experimentalsys.O_CREAT|experimentalsys.O_EXCL|experimentalsys.O_TRUNC), 0)
	if e != 0 {
		f.Close()
		return nil, e
	}
	return &rootFile{File: adapted, fs: r, f: f, path: p}, 0
}

func (f *rootFile) Truncate(size int64) experimentalsys.Errno { return errno(f.f.Truncate(size)) }

func (f *rootFile) Sync() experimentalsys.Errno { return errno(f.f.Sync()) }

func (f *rootFile) Datasync() experimentalsys.Errno { return errno(f.f.Sync()) }

func (f *rootFile) Utimens(atim, mtim int64) experimentalsys.Errno {
	return f.fs.Utimens(f.path, atim, mtim)
}

// reopener is the fs.FS the adapter sees: the file already opened first,
// then the same path opened again through the root (to rewind a
// directory).
type reopener struct {
	root  *os.Root
	path  string
	first *os.File
}

func (o *reopener) Open(name string) (fs.File, error) {
	if f := o.first; f != nil {
		o.first = nil
		return f, nil
	}
	return o.root.Open(o.path)
}

func timeOf(ns int64) time.Time { return time.Unix(0, ns) }
