package eventwire_test

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/wasmagent/wasmagent/host/eventwire"
	"github.com/wasmagent/wasmagent/host/openai/openaitest"
)

// FuzzBudget streams messages of fuzzed shape, fragment size and budget
// through the adapter, the loop and an Encoder: in every mode the lines
// are valid, a client rebuilds the message, and the bound holds.
func FuzzBudget(f *testing.F) {
	f.Add(uint64(1), uint16(0), uint8(1), uint16(1), uint16(1))
	f.Add(uint64(2), uint16(5000), uint8(4), uint16(2000), uint16(40))
	f.Add(uint64(3), uint16(65535), uint8(0), uint16(100), uint16(4096))
	f.Fuzz(func(t *testing.T, seed uint64, floor uint16, ratio uint8, word, frag uint16) {
		rng := rand.New(rand.NewPCG(seed, 0))
		s, _ := openaitest.RandomMessage(rng, 1+int(word%4000), 1+int(frag%4096))
		body := s.Finish("tool_calls").Bytes()
		for _, mode := range []eventwire.Mode{eventwire.ModePi, eventwire.ModeDeltas} {
			opts := eventwire.Options{Mode: mode, Floor: 1 + int64(floor), Ratio: 1 + int64(ratio%16)}
			var out bytes.Buffer
			final, _ := run(t, adapter(t, body), opts, &out)
			ls := firstMessage(t, out.Bytes())
			if mode == eventwire.ModePi {
				checkPi(t, ls, final, opts)
			} else {
				checkDeltas(t, ls, final, opts)
			}
		}
	})
}
