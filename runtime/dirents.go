package runtime

import experimentalsys "github.com/tetratelabs/wazero/experimental/sys"

// DirentCost is what each directory entry an instance has read counts
// against its host memory limit (the memory grant, as its blocks do)
// beside its name, while the descriptor it was read through is open:
// wazero keeps every entry read through a directory descriptor, to
// answer fd_readdir from any cookie, until the descriptor is closed or
// read again from cookie 0. Uncounted, a plugin of one page could have
// the host hold a whole directory for each of its 1,024 descriptors
// (RATIONALE.md, "Why do blocks, variables, log lines and directory
// entries count more than their bytes?").
const DirentCost = 64

// holdDirents counts the entries ds read through a descriptor (held is
// that descriptor's count), or ends the call when they pass the limit.
func (st *callState) holdDirents(held *uint64, ds []experimentalsys.Dirent) {
	var n uint64
	for _, d := range ds {
		n += DirentCost + uint64(len(d.Name))
	}
	*held += n
	st.held += n
	if used := uint64(len(st.mem)) + st.blocksCost(0) + st.held; used > st.limit {
		st.check(capFault("MemoryPages", st.limit>>16, "fd_readdir: directory entries read through the instance's open descriptors (each counts %d bytes beside its name), with %s", DirentCost, st.inUse()))
	}
}

// releaseDirents gives back what a descriptor's entries counted.
func (st *callState) releaseDirents(held *uint64) {
	st.held -= *held
	*held = 0
}

// Readdir reads entries for wazero's fd_readdir, which keeps them. An
// fd_readdir from cookie 0 (callState.readdirFromStart, set by wasiGuard)
// rewinds the directory and drops what wazero kept of it before reading
// again: what its entries counted is given back first.
func (f stopFile) Readdir(n int) ([]experimentalsys.Dirent, experimentalsys.Errno) {
	f.st.enter()
	f.st.sawFiles("reads a granted directory")
	if f.st.readdirFromStart {
		f.st.releaseDirents(f.dirents)
	}
	ds, errno := f.File.Readdir(n)
	f.st.holdDirents(f.dirents, ds)
	return ds, errno
}
