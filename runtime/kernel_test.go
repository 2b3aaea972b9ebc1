package runtime

import (
	"encoding/binary"
	"testing"
)

// FuzzKernel runs a guest's sequence of kernel operations (alloc, free,
// stores, reset) against a model: every block a guest allocates reads as
// zeros, whatever was written and freed before, and no operation
// panics or reaches outside the limit.
func FuzzKernel(f *testing.F) {
	f.Add([]byte{0, 40, 2, 1, 9, 1, 0, 0, 40, 3, 0})
	f.Add([]byte{0, 255, 3, 0, 1, 0, 0, 255, 4, 200, 7, 5})
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
			switch next() % 6 {
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
			}
			if uint64(len(k.mem)) > limit {
				t.Fatalf("host memory of %d bytes over the limit of %d", len(k.mem), limit)
			}
		}
	})
}
