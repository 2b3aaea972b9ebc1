package wasmbuild

import (
	"math/rand/v2"
	"slices"
)

// MutatedPlugin is the plugin whose mutations (PluginMutations, the first
// MutationCount) runtime's TestMutatedPluginsNeverTakeTheHostDown loads.
// make test's prewarm compiles the same, without the race detector: a
// mutation that loads is a Go plugin compiled, seconds of CPU, and
// several times that in a test process built with -race.
const (
	MutatedPlugin = "plugins/calc"
	MutationCount = 8
)

// PluginMutations are the first n of a fixed sequence of mutations of
// wasm (a real plugin) outside its code and data sections: the same
// bytes in every process, so that what a test loads, a prewarm can have
// compiled.
func PluginMutations(wasm []byte, n int) [][]byte {
	rng := rand.New(rand.NewPCG(11, 3))
	out := make([][]byte, n)
	for i := range out {
		out[i] = Mutate(rng, wasm, false)
	}
	return out
}

// Mutate changes wasm in one of several ways a broken or hostile file
// would differ from a real one: a byte set anywhere (or, unless anywhere,
// in a section other than code, data and custom ones), a section dropped,
// duplicated or swapped, a cut at a section boundary.
func Mutate(rng *rand.Rand, wasm []byte, anywhere bool) []byte {
	secs := splitSections(wasm)
	head := wasm[:8]
	pick := func() int {
		for range 20 {
			i := rng.IntN(len(secs))
			if anywhere || (secs[i][0] != 10 && secs[i][0] != 11 && secs[i][0] != 0) {
				return i
			}
		}
		return 0
	}
	switch rng.IntN(6) {
	case 0, 1:
		out := slices.Clone(wasm)
		if anywhere {
			out[8+rng.IntN(len(out)-8)] = byte(rng.Uint32())
			return out
		}
		i := pick()
		at := 8
		for _, s := range secs[:i] {
			at += len(s)
		}
		out[at+1+rng.IntN(len(secs[i])-1)] = byte(rng.Uint32())
		return out
	case 2:
		i := pick()
		return slices.Concat(head, slices.Concat(secs[:i]...), slices.Concat(secs[i+1:]...))
	case 3:
		i := pick()
		return slices.Concat(head, slices.Concat(secs[:i+1]...), secs[i], slices.Concat(secs[i+1:]...))
	case 4:
		i, j := pick(), pick()
		secs = slices.Clone(secs)
		secs[i], secs[j] = secs[j], secs[i]
		return slices.Concat(head, slices.Concat(secs...))
	default:
		return slices.Concat(head, slices.Concat(secs[:rng.IntN(len(secs)+1)]...))
	}
}

// splitSections splits a module after its header into its sections, each
// with its id and size; a section that runs past the end ends there.
func splitSections(wasm []byte) [][]byte {
	var out [][]byte
	for at := 8; at < len(wasm); {
		var n uint32
		w := 0
		for i, c := range wasm[at+1:] {
			if i == 5 {
				w = i
				break
			}
			n |= uint32(c&0x7f) << (7 * i)
			w = i + 1
			if c&0x80 == 0 {
				break
			}
		}
		end := min(len(wasm), at+1+w+int(n))
		out = append(out, wasm[at:end])
		at = end
	}
	return out
}
