package image

import "encoding/binary"

// The layout of Go's chacha8rand.State (Go 1.22 to 1.26): a buffer of 32
// words, the 4-word seed, then the uint32s i (next word), n (words in the
// buffer) and c (block counter). In runtime.m, the word after the state
// (8-aligned) is cheaprand: a layout guess that TestGoLayout checks.
const (
	stateSeed  = 256
	stateI     = 288
	stateN     = 292
	stateC     = 296
	stateSize  = 300
	cheapAfter = 304
)

// Seeds are where, in a snapshot of a Go module, the runtime's random
// state lies that every instance must re-draw.
type Seeds struct {
	States []uint32 // offsets of ChaCha8 generator states
	Cheap  []uint32 // offsets of cheaprand words
}

// FindSeeds finds the ChaCha8 generator states of Go's runtime in a and
// b, two snapshots of one module initialized with different entropy: a
// state is 304 bytes whose buffer is the ChaCha8 block of its seed at its
// counter, in both snapshots, with seeds that differ (a generator the
// module seeded with a constant has the same seed in both and is left
// alone). The 8 bytes after a state are taken as cheaprand if they differ
// between the snapshots.
func FindSeeds(a, b []byte) Seeds {
	var s Seeds
	n := min(len(a), len(b))
	for off := 0; off+cheapAfter+8 <= n; off += 8 {
		if string(a[off+stateSeed:off+stateI]) == string(b[off+stateSeed:off+stateI]) {
			continue
		}
		if !isState(a[off:]) || !isState(b[off:]) {
			continue
		}
		s.States = append(s.States, uint32(off))
		c := off + cheapAfter
		if string(a[c:c+8]) != string(b[c:c+8]) {
			s.Cheap = append(s.Cheap, uint32(c))
		}
		off += stateSize - 4 // the loop adds 8 (aligned past the state)
	}
	return s
}

func isState(m []byte) bool {
	le := binary.LittleEndian
	i, n, c := le.Uint32(m[stateI:]), le.Uint32(m[stateN:]), le.Uint32(m[stateC:])
	if (n != 32 && n != 28) || i > n || c%4 != 0 || c >= 16 {
		return false
	}
	var seed [4]uint64
	for j := range seed {
		seed[j] = le.Uint64(m[stateSeed+8*j:])
	}
	buf := block(seed, c)
	for j, w := range buf {
		if le.Uint64(m[8*j:]) != w {
			return false
		}
	}
	return true
}

// Reseed re-draws, in mem (an instance's memory restored from the
// snapshot s was found in), each generator state from a fresh seed of 32
// bytes and each cheaprand word from 8 bytes, read from random: the state
// is then exactly what Go's chacha8rand.State.Init gives for that seed.
func (s Seeds) Reseed(mem []byte, random func([]byte)) {
	le := binary.LittleEndian
	var b [32]byte
	for _, off := range s.States {
		m := mem[off : off+stateSize]
		random(b[:])
		var seed [4]uint64
		for j := range seed {
			seed[j] = le.Uint64(b[8*j:])
			le.PutUint64(m[stateSeed+8*j:], seed[j])
		}
		for j, w := range block(seed, 0) {
			le.PutUint64(m[8*j:], w)
		}
		le.PutUint32(m[stateI:], 0)
		le.PutUint32(m[stateN:], 32)
		le.PutUint32(m[stateC:], 0)
	}
	for _, off := range s.Cheap {
		for {
			random(b[:8])
			if le.Uint64(b[:8]) != 0 {
				break
			}
		}
		copy(mem[off:off+8], b[:8])
	}
}

// StateSize is the bytes of a ChaCha8 state, from its offset in
// Seeds.States, that Reseed rewrites; it rewrites 8 bytes at each offset
// in Seeds.Cheap.
const StateSize = stateSize
