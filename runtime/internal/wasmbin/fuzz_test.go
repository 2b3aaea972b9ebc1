package wasmbin

import (
	"context"
	"errors"
	"testing"

	"github.com/tetratelabs/wazero"
)

// FuzzReadFacts: ReadFacts never panics, and on every module wazero
// accepts (of at most MaxSections sections) it finds the same exported
// memories, with the same limits, and the same exported functions.
func FuzzReadFacts(f *testing.F) {
	sec := func(id byte, b ...byte) []byte { return AppendSection(nil, id, b) }
	f.Add([]byte(Header))
	f.Add(append([]byte(Header), sec(SecMemory, 1, 0x01, 0x01, 0x02)...))
	f.Add(append(append([]byte(Header), sec(SecMemory, 1, 0x00, 0x02)...), sec(SecExport, 1, 1, 'm', KindMemory, 0)...))
	f.Add(append([]byte(Header), sec(SecImport, 1, 1, 'e', 1, 'm', KindMemory, 0x00, 0x01)...))
	f.Add(append([]byte(Header), sec(SecCustom, 10, 'g', 'o', ':', 'b', 'u', 'i', 'l', 'd', 'i', 'd', 'x')...))
	// Every form of element segment, with constant expressions.
	f.Add(append([]byte(Header), sec(SecElement, 4, 0x00, 0x41, 0x00, 0x0b, 0x01, 0x00, 0x02, 0x00, 0x23, 0x00, 0x0b, 0x00, 0x00,
		0x05, 0x70, 0x01, 0xd0, 0x70, 0x0b, 0x06, 0x00, 0x42, 0x01, 0x0b, 0x70, 0x01, 0xd2, 0x00, 0x0b)...))
	f.Add(append([]byte(Header), sec(SecGlobal, 1, 0x7b, 0x00, 0xfd, 0x0c, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 0x0b)...))
	ctx := context.Background()
	r := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfigInterpreter())
	f.Fuzz(func(t *testing.T, wasm []byte) {
		facts, err := ReadFacts(wasm)
		if !plausible(wasm) || errors.Is(err, ErrTooManySections) {
			return // (a refusal of the host's, of modules wazero may accept)
		}
		c, cerr := r.CompileModule(ctx, wasm)
		if cerr != nil {
			return
		}
		defer c.Close(ctx)
		if err != nil {
			t.Fatalf("wazero accepts the module, ReadFacts does not: %v", err)
		}
		exported := map[string]Memory{}
		for _, m := range facts.Memories {
			for _, name := range m.Exports {
				exported[name] = m
			}
		}
		for name, def := range c.ExportedMemories() {
			m, ok := exported[name]
			max, hasMax := def.Max()
			if !ok || m.Min != uint64(def.Min()) || m.HasMax != hasMax || (hasMax && m.Max != uint64(max)) {
				t.Fatalf("memory %q: facts %+v, wazero min %d max %d/%v", name, m, def.Min(), max, hasMax)
			}
		}
		funcs := map[string]bool{}
		for _, name := range facts.Funcs {
			funcs[name] = true
		}
		if len(funcs) != len(c.ExportedFunctions()) {
			t.Fatalf("exported functions: facts %q, wazero %d", facts.Funcs, len(c.ExportedFunctions()))
		}
		for name := range c.ExportedFunctions() {
			if !funcs[name] {
				t.Fatalf("function %q: wazero exports it, facts %q do not", name, facts.Funcs)
			}
		}
	})
}

// plausible reports whether every vector count at the start of a section
// fits in the section. wazero allocates for the count before reading the
// items: a 13-byte module with an export count of 10^8 took it 53 s. (The
// runtime never gives wazero such a module: the rewrite reads every item
// first.)
func plausible(wasm []byte) bool {
	secs, err := Sections(wasm)
	if err != nil {
		return false
	}
	for _, s := range secs {
		if s.ID == SecCustom || s.ID == SecStart || s.ID == SecDataCnt {
			continue
		}
		if n := NewReader(s.Body).U32(); int64(n) > int64(len(s.Body)) {
			return false
		}
	}
	return true
}
