package runtime

import (
	"encoding/binary"
	"fmt"

	"github.com/tetratelabs/wazero/experimental"
)

// kernel is the host-side memory of one instance: the blocks Extism calls
// pass between guest and host (input, output, error, configuration values,
// log lines, HTTP bodies). Extism keeps it in a second Wasm module; here it
// is a byte slice with a bump allocator. Offset 0 is the null block.
//
// Every access is bounds-checked; a bad offset, an allocation over the
// limit or an output over its cap is a fault that ends the call with an
// error naming it. Extism instead returns empty data and no error in
// several of these cases (RATIONALE.md, "Why does the runtime implement
// the Extism host ABI instead of calling go-sdk?").
type kernel struct {
	lm     experimental.LinearMemory // where mem lives (memory_mmap.go)
	mem    []byte
	blocks map[uint64]uint64 // offset → length of live blocks
	limit  uint64            // most bytes mem may hold
	// allocated counts the bytes of every block allocated in this call,
	// freed or not; allocCap bounds it (Grants.MaxHostAllocBytes), so that
	// a loop of large allocations cannot keep the host busy zeroing them.
	allocated, allocCap uint64
	// dirty is the end of the bytes ever written: the bytes above it are
	// still zero (fresh pages of the mapping, or zeroed by the Go heap), so
	// alloc clears only reused bytes below it, and a large block costs no
	// page faults and no time until something is written to it.
	dirty uint64
	// reclaim, when non-zero, is where mem may be cut back to at the next
	// alloc: the start of the freed blocks at its end.
	reclaim uint64
	// held is host memory the instance holds beside its blocks, counted
	// against the same limit: the directory entries read through its
	// open descriptors (dirents.go), an HTTP response being read
	// (http_body.go).
	held uint64

	input, inputLen   uint64
	output, outputLen uint64
	errorOff          uint64
}

// kernelBase is where the first block starts: offsets below it are never
// valid, so 0 stays the null block.
const kernelBase = 8

// BlockCost is what each live block counts against the host memory
// limit beside its bytes: the host keeps an entry for it in a map (20 to
// 40 bytes in Go's maps, more while one grows), as Extism's kernel keeps
// a header beside it in the same memory. Without it the limit bounded
// the bytes of the blocks, not their number: a plugin allocating blocks
// of one byte made the host allocate some 70 bytes of Go heap for each
// byte of its grant (RATIONALE.md, "Why do blocks, variables, log lines and directory
// entries count more than their bytes?").
const BlockCost = 64

func newKernel(limit, allocCap uint64) kernel {
	lm := allocate(4096, limit)
	return kernel{lm: lm, mem: lm.Reallocate(kernelBase), blocks: map[uint64]uint64{}, limit: limit, allocCap: allocCap}
}

// release returns the kernel's memory; the kernel is not used after.
func (k *kernel) release() {
	k.lm.Free()
	k.mem = nil
}

// fault is a host-side error raised inside a host function: it becomes the
// cause of the call's error. It matches ErrTrap (the plugin broke the
// ABI) or ErrCap (a [*CapError]).
type fault struct{ err error }

func (f *fault) Error() string { return f.err.Error() }
func (f *fault) Unwrap() error { return f.err }

// faultf is a broken-ABI fault (ErrTrap). Its message, as a capFault's,
// is cut to MaxMessageBytes: it may quote what the plugin passed (a
// variable's name, a URL, a method), of any length.
func faultf(format string, args ...any) *fault {
	return &fault{because(truncate(fmt.Sprintf(format, args...), MaxMessageBytes), ErrTrap)}
}

// capFault is a call reaching the cap named by the Grants field name.
func capFault[N int | int64 | uint64](name string, limit N, format string, args ...any) *fault {
	return &fault{&CapError{Cap: name, Limit: int64(limit), Detail: truncate(fmt.Sprintf(format, args...), MaxMessageBytes)}}
}

func (k *kernel) alloc(n uint64) (uint64, *fault) {
	if n == 0 {
		return 0, nil
	}
	if k.reclaim != 0 {
		k.mem = k.mem[:k.reclaim]
		k.reclaim = 0
	}
	off := uint64(len(k.mem))
	if n > k.limit || off+n+k.blocksCost(1)+k.held > k.limit {
		return 0, capFault("MemoryPages", k.limit>>16, "alloc: %d bytes of host memory asked for with %s", n, k.inUse())
	}
	if k.allocated += n; k.allocated > k.allocCap || k.allocated < n {
		return 0, capFault("MaxHostAllocBytes", k.allocCap, "alloc: %d bytes of host memory allocated in this call", k.allocated)
	}
	mem := k.lm.Reallocate(off + n)
	if mem == nil {
		return 0, capFault("MemoryPages", k.limit>>16, "alloc: %d bytes of host memory asked for with %d in use", n, off)
	}
	k.mem = mem
	if off < k.dirty {
		clear(k.mem[off:min(off+n, k.dirty)]) // bytes of freed blocks, reused
	}
	k.blocks[off] = n
	return off, nil
}

// inUse says what holds the host memory, for a refusal.
func (k *kernel) inUse() string {
	s := fmt.Sprintf("%d in use by %d blocks (each block counts %d bytes more)", len(k.mem), len(k.blocks), BlockCost)
	if k.held > 0 {
		s += fmt.Sprintf(" and %d held beside them (directory entries read, an HTTP response being read)", k.held)
	}
	return s
}

// blocksCost is what the live blocks and more new ones count beside
// their bytes (BlockCost each).
func (k *kernel) blocksCost(more int) uint64 { return BlockCost * uint64(len(k.blocks)+more) }

// wrote records a write ending at end.
func (k *kernel) wrote(end uint64) { k.dirty = max(k.dirty, end) }

func (k *kernel) allocBytes(b []byte) (uint64, *fault) {
	off, f := k.alloc(uint64(len(b)))
	if f == nil {
		copy(k.mem[off:], b)
		k.wrote(off + uint64(len(b)))
	}
	return off, f
}

// free drops a block. Its bytes stay readable until the next alloc, which
// reuses them when they are at the end of memory (the alloc-use-free
// pattern of log lines and requests). go-pdk reads an HTTP response body
// after freeing the block that the host had reused for it; the Extism
// kernel gets away with that the same way. Unknown offsets are ignored, as
// Extism does.
func (k *kernel) free(off uint64) {
	n, ok := k.blocks[off]
	if !ok {
		return
	}
	delete(k.blocks, off)
	end := uint64(len(k.mem))
	if k.reclaim != 0 {
		end = k.reclaim
	}
	if off+n == end {
		k.reclaim = off
	}
}

func (k *kernel) reset() {
	clear(k.blocks)
	k.mem = k.mem[:kernelBase]
	k.reclaim = 0
	k.input, k.inputLen, k.output, k.outputLen, k.errorOff = 0, 0, 0, 0, 0
}

// span checks that [off, off+n) lies in allocated host memory.
func (k *kernel) span(off, n uint64, what string) *fault {
	if off < kernelBase || off+n > uint64(len(k.mem)) || off+n < off {
		return faultf("%s: offset %d (+%d bytes) is outside the plugin's host memory (%d bytes)", what, off, n, len(k.mem))
	}
	return nil
}

// block returns the bytes of the block at off (nil for the null block).
func (k *kernel) block(off uint64, what string) ([]byte, *fault) {
	if off == 0 {
		return nil, nil
	}
	n, ok := k.blocks[off]
	if !ok {
		return nil, faultf("%s: offset %d is not an allocated block", what, off)
	}
	return k.mem[off : off+n], nil
}

func (k *kernel) loadU8(off uint64) (uint32, *fault) {
	if f := k.span(off, 1, "load_u8"); f != nil {
		return 0, f
	}
	return uint32(k.mem[off]), nil
}

func (k *kernel) loadU64(off uint64) (uint64, *fault) {
	if f := k.span(off, 8, "load_u64"); f != nil {
		return 0, f
	}
	return binary.LittleEndian.Uint64(k.mem[off:]), nil
}

func (k *kernel) storeU8(off uint64, v byte) *fault {
	if f := k.span(off, 1, "store_u8"); f != nil {
		return f
	}
	k.mem[off] = v
	k.wrote(off + 1)
	return nil
}

func (k *kernel) storeU64(off, v uint64) *fault {
	if f := k.span(off, 8, "store_u64"); f != nil {
		return f
	}
	binary.LittleEndian.PutUint64(k.mem[off:], v)
	k.wrote(off + 8)
	return nil
}

func (k *kernel) inputLoadU8(i uint64) (uint32, *fault) {
	if i >= k.inputLen {
		return 0, faultf("input_load_u8: index %d is past the input's %d bytes", i, k.inputLen)
	}
	if f := k.span(k.input+i, 1, "input_load_u8 (the input's block was freed)"); f != nil {
		return 0, f
	}
	return uint32(k.mem[k.input+i]), nil
}

func (k *kernel) inputLoadU64(i uint64) (uint64, *fault) {
	if i+8 > k.inputLen || i+8 < i {
		return 0, faultf("input_load_u64: index %d (+8 bytes) is past the input's %d bytes", i, k.inputLen)
	}
	if f := k.span(k.input+i, 8, "input_load_u64 (the input's block was freed)"); f != nil {
		return 0, f
	}
	return binary.LittleEndian.Uint64(k.mem[k.input+i:]), nil
}

// setInput copies the call's input into host memory.
func (k *kernel) setInput(in []byte) *fault {
	off, f := k.allocBytes(in)
	if f != nil {
		return capFault("MemoryPages", k.limit>>16, "the input of %d bytes does not fit in the plugin's host memory of %d bytes", len(in), k.limit)
	}
	k.input, k.inputLen = off, uint64(len(in))
	return nil
}

// outputBytes is the output the guest set, if any; a fault if its block
// no longer lies in host memory (freed and cut back since).
func (k *kernel) outputBytes() ([]byte, *fault) {
	if k.outputLen == 0 {
		return nil, nil
	}
	if f := k.span(k.output, k.outputLen, "output (its block was freed before the call returned)"); f != nil {
		return nil, f
	}
	return k.mem[k.output : k.output+k.outputLen], nil
}
