package runtime

import "syscall"

const mapNoReserve = syscall.MAP_NORESERVE

// adviseHuge asks the kernel to back b with transparent huge pages. A Go
// plugin touches a few MiB of its memory at start; at 4 KiB a page fault
// each (about 10 µs apiece on a small VM) that is most of an instance's
// creation (RATIONALE.md, "Why huge pages for mapped memories?"). The
// advice is best effort: a kernel without THP, or with it turned off,
// refuses it and the memory works as before.
func adviseHuge(b []byte) { _ = syscall.Madvise(b, syscall.MADV_HUGEPAGE) }
