package fuel

import (
	"os"
	"testing"

	"github.com/wasmagent/wasmagent/internal/wasmbuild"
)

// The rewrite of a Go plugin (plugins/calc: 3.8 MB, most of it code), as
// the runtime makes it at every load that misses its rewrite cache. Under
// the race detector its cost is mostly allocation and byte-by-byte reads,
// so B/op matters as much as ns/op there.
//
//	go test ./runtime/internal/fuel -run '^$' -bench InstrumentGoPlugin -count 3
func BenchmarkInstrumentGoPlugin(b *testing.B) {
	wasm, err := os.ReadFile(wasmbuild.ForTest(b, "plugins/calc"))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(wasm)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Instrument(wasm, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}
