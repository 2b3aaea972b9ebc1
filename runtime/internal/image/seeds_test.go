package image

import (
	"encoding/binary"
	"math/rand/v2"
	"testing"
)

// putState writes a Go chacha8rand.State for seed, counter c, at off.
func putState(mem []byte, off int, seed [4]uint64, c, i uint32) {
	le := binary.LittleEndian
	for j, w := range block(seed, c) {
		le.PutUint64(mem[off+8*j:], w)
	}
	for j, w := range seed {
		le.PutUint64(mem[off+stateSeed+8*j:], w)
	}
	le.PutUint32(mem[off+stateI:], i)
	le.PutUint32(mem[off+stateN:], 32)
	le.PutUint32(mem[off+stateC:], c)
}

// FindSeeds finds the states whose seeds differ between two snapshots,
// and the cheaprand word after one when it differs too; a state with the
// same seed in both (a constant seed) and random bytes that are no state
// are left alone. Reseed gives a state that is a valid, new one.
func TestFindSeeds(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	a, b := make([]byte, 1<<16), make([]byte, 1<<16)
	seed := func() [4]uint64 { return [4]uint64{r.Uint64(), r.Uint64(), r.Uint64(), r.Uint64()} }
	putState(a, 1024, seed(), 4, 7) // drawn from entropy: differs
	putState(b, 1024, seed(), 4, 7)
	binary.LittleEndian.PutUint64(a[1024+cheapAfter:], r.Uint64())
	binary.LittleEndian.PutUint64(b[1024+cheapAfter:], r.Uint64())
	fixed := seed()
	putState(a, 8192, fixed, 0, 3) // seeded with a constant: the same
	putState(b, 8192, fixed, 0, 3)
	putState(a, 16384, seed(), 12, 1) // differs, no cheaprand after it
	putState(b, 16384, seed(), 12, 1)
	for j := 20000; j < 21000; j++ { // random bytes that differ
		a[j], b[j] = byte(r.IntN(256)), byte(r.IntN(256))
	}
	s := FindSeeds(a, b)
	if len(s.States) != 2 || s.States[0] != 1024 || s.States[1] != 16384 {
		t.Fatalf("states at %v, want [1024 16384]", s.States)
	}
	if len(s.Cheap) != 1 || s.Cheap[0] != 1024+cheapAfter {
		t.Fatalf("cheaprand at %v, want [%d]", s.Cheap, 1024+cheapAfter)
	}
	if s := FindSeeds(a, a); len(s.States)+len(s.Cheap) != 0 {
		t.Fatalf("identical snapshots: found %+v", s)
	}
	before := append([]byte(nil), a...)
	s.Reseed(a, func(p []byte) {
		for j := range p {
			p[j] = byte(r.IntN(256))
		}
	})
	if !isState(a[1024:]) || !isState(a[16384:]) {
		t.Fatal("a re-drawn state is not a valid state")
	}
	if string(a[1024+stateSeed:1024+stateI]) == string(before[1024+stateSeed:1024+stateI]) {
		t.Fatal("the seed was not re-drawn")
	}
	if string(a[8192:8192+cheapAfter]) != string(before[8192:8192+cheapAfter]) {
		t.Fatal("the constant-seeded state changed")
	}
}
