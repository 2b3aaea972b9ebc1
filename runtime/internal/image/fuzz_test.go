package image

import (
	"errors"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/wasmagent/wasmagent/runtime/internal/wasmbin"
)

// FuzzMake: Make never panics on any input; a template it returns is a
// well-formed sequence of sections that exports every mutable global it
// lists, under names no other export has.
func FuzzMake(f *testing.F) {
	for seed := range uint64(8) {
		f.Add(genModule(rand.New(rand.NewPCG(seed, 1))))
	}
	f.Add([]byte(wasmbin.Header))
	f.Fuzz(func(t *testing.T, wasm []byte) {
		tmpl, err := Make(wasm)
		if err != nil {
			if tmpl != nil {
				t.Fatal("a template with an error")
			}
			return
		}
		secs, err := wasmbin.Sections(tmpl.Wasm)
		if err != nil {
			t.Fatalf("the template does not split into sections: %v", err)
		}
		exported := map[string]int{}
		for _, s := range secs {
			if s.ID != wasmbin.SecExport {
				continue
			}
			r := wasmbin.NewReader(s.Body)
			n := r.U32()
			for range n {
				name, _ := r.Name()
				r.Byte()
				r.U32()
				exported[name]++
			}
			if r.Err != nil {
				t.Fatalf("the template's export section: %v", r.Err)
			}
		}
		for _, g := range tmpl.Globals {
			if exported[g.Export] != 1 {
				t.Fatalf("global %d is exported %d times as %q", g.Index, exported[g.Export], g.Export)
			}
		}
	})
}

// Each refusal names its reason and wraps ErrUnsupported.
func TestMakeRefuses(t *testing.T) {
	base := genModule(rand.New(rand.NewPCG(3, 1)))
	secs, _ := wasmbin.Sections(base)
	with := func(id byte, body []byte) []byte {
		out := []byte(wasmbin.Header)
		done := false
		for _, s := range secs {
			if !done && s.ID != 0 && wasmbin.SectionRank[s.ID] > wasmbin.SectionRank[id] {
				out = wasmbin.AppendSection(out, id, body)
				done = true
			}
			if s.ID == id {
				continue
			}
			out = wasmbin.AppendSection(out, s.ID, s.Body)
		}
		if !done {
			out = wasmbin.AppendSection(out, id, body)
		}
		return out
	}
	for _, c := range []struct {
		name, want string
		wasm       []byte
	}{
		{"start", "start function", with(wasmbin.SecStart, []byte{0})},
		{"passive", "passive data", with(wasmbin.SecData, []byte{1, 1, 0})},
		{"global offset", "not a constant", with(wasmbin.SecData, []byte{1, 0, 0x23, 0, 0x0b, 0})},
		{"past memory", "past the initial memory", with(wasmbin.SecData, append([]byte{1, 0, 0x41}, append(wasmbin.AppendS64(nil, 2*PageSize-1), 0x0b, 2, 1, 2)...))},
		{"shared memory", "shared", with(wasmbin.SecMemory, []byte{1, 3, 1, 1})},
		{"no memory", "0 memories", with(wasmbin.SecMemory, []byte{0})},
		{"ref global", "mutable global of type 0x70", with(wasmbin.SecGlobal, []byte{1, 0x70, 1, 0xd0, 0x70, 0x0b})},
	} {
		_, err := Make(c.wasm)
		if !errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want a refusal naming %q", c.name, err, c.want)
		}
	}
}
