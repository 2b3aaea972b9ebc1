package image

import (
	"math/rand/v2"
	"testing"
	"unsafe"
)

// TestBlockMatchesGo checks block against Go's own ChaCha8 generator:
// math/rand/v2's ChaCha8 is a chacha8rand.State, whose first 32 outputs
// for a seed are the block of that seed at counter 0.
func TestBlockMatchesGo(t *testing.T) {
	for _, s := range []string{"0123456789abcdef0123456789abcdef", "chacha8rand seed for a test....."} {
		var seed [32]byte
		copy(seed[:], s)
		g := rand.NewChaCha8(seed)
		var ws [4]uint64
		for j := range ws {
			ws[j] = *(*uint64)(unsafe.Pointer(&seed[8*j]))
		}
		want := block(ws, 0)
		for j := range want {
			if got := g.Uint64(); got != want[j] {
				t.Fatalf("seed %q word %d: Go gives %#x, block %#x", s, j, got, want[j])
			}
		}
	}
}
