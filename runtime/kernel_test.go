package runtime

import (
	"encoding/binary"
	"testing"
)

// FuzzKernel runs a guest's sequence of kernel operations (alloc, free,
// stores, reset, input and output) against a model: every block a guest
// allocates reads as zeros, whatever was written and freed before, and no
// operation panics (reads of a freed input or output included) or reaches
// outside the limit.
func FuzzKernel(f *testing.F) {
	f.Add([]byte{0, 40, 2, 1, 9, 1, 0, 0, 40, 3, 0})
	f.Add([]byte{0, 255, 3, 0, 1, 0, 0, 255, 4, 200, 7, 5})
	f.Add([]byte{0, 200, 6, 0, 0, 1, 0, 0, 1, 7, 100, 8})
	f.Fuzz(func(t *testing.T, script []byte) {
		const limit = 64 << 10
		k := newKernel(limit, 1<<20)
		defer k.release()
		var live []uint64
		next := func() byte {
			if len(script) == 0 {
				return 0
			}
			b := script[0]
			script = script[1:]
			return b
		}
		for len(script) > 0 {
			switch next() % 9 {
			case 0: // alloc n*97 bytes; it must read as zeros
				n := uint64(next()) * 97
				off, flt := k.alloc(n)
				if flt != nil || n == 0 {
					continue
				}
				for i, b := range k.mem[off : off+n] {
					if b != 0 {
						t.Fatalf("byte %d of a new block of %d at %d is %d", i, n, off, b)
					}
				}
				live = append(live, off)
			case 1: // free a live block
				if len(live) > 0 {
					i := int(next()) % len(live)
					k.free(live[i])
					live = append(live[:i], live[i+1:]...)
				}
			case 2, 3: // fill a live block with a byte pattern
				if len(live) > 0 {
					off := live[int(next())%len(live)]
					v := next() | 1
					for i := off; i < off+k.blocks[off]; i++ {
						if f := k.storeU8(i, v); f != nil {
							t.Fatal(f)
						}
					}
				}
			case 4: // a store anywhere is checked
				off := uint64(binary.LittleEndian.Uint16([]byte{next(), next()}))
				_ = k.storeU64(off, 0xffffffffffffffff)
			case 5:
				k.reset()
				live = nil
			case 6: // input_set and output_set on a live block, as the host functions do
				if len(live) > 0 {
					off := live[int(next())%len(live)]
					if k.span(off, k.blocks[off], "set") == nil {
						if next()%2 == 0 {
							k.input, k.inputLen = off, k.blocks[off]
						} else {
							k.output, k.outputLen = off, k.blocks[off]
						}
					}
				}
			case 7: // reads of the input, even after its block was freed
				i := uint64(next())
				_, _ = k.inputLoadU8(i)
				_, _ = k.inputLoadU64(i)
			case 8: // the output, even after its block was freed
				_, _ = k.outputBytes()
			}
			if uint64(len(k.mem)) > limit {
				t.Fatalf("host memory of %d bytes over the limit of %d", len(k.mem), limit)
			}
		}
	})
}

// The input and output blocks may be freed, and host memory cut back,
// before they are read: the reads are faults, not panics.
func TestFreedInputAndOutputAreFaults(t *testing.T) {
	k := newKernel(1<<20, 1<<30)
	defer k.release()
	off, _ := k.alloc(1000)
	k.input, k.inputLen = off, 1000
	k.output, k.outputLen = off, 1000
	k.free(off)
	k.alloc(10) // cuts host memory back to the freed block's start
	if _, f := k.inputLoadU8(900); f == nil {
		t.Fatal("input_load_u8 of a freed input: no fault")
	}
	if _, f := k.inputLoadU64(900); f == nil {
		t.Fatal("input_load_u64 of a freed input: no fault")
	}
	if _, f := k.outputBytes(); f == nil {
		t.Fatal("the output of a freed block: no fault")
	}
}
