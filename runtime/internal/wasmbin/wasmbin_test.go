package wasmbin

import (
	"context"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/tetratelabs/wazero"
)

// Every value round-trips through the writer and the reader, at every
// width, and the reader refuses what does not fit the width.
func TestLEBRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 100000; i++ {
		bits := uint(1 + rng.IntN(64))
		u := rng.Uint64() >> (64 - bits)
		r := NewReader(AppendU64(nil, u))
		if got := r.Uleb(64); got != u || r.Err != nil || r.More() {
			t.Fatalf("uleb %d: got %d, %v", u, got, r.Err)
		}
		s := int64(rng.Uint64()) >> (64 - bits)
		r = NewReader(AppendS64(nil, s))
		if got := r.Sleb(bits); got != s || r.Err != nil || r.More() {
			t.Fatalf("sleb%d %d: got %d, %v", bits, s, got, r.Err)
		}
		if bits < 64 {
			over := uint64(1) << bits
			if r := NewReader(AppendU64(nil, u|over)); r.Uleb(bits) != 0 || r.Err == nil {
				t.Fatalf("uleb%d accepted %d", bits, u|over)
			}
		}
	}
	for _, c := range []struct {
		name string
		b    []byte
		bits uint
	}{
		{"u32 in six bytes", []byte{0x80, 0x80, 0x80, 0x80, 0x80, 0x00}, 32},
		{"u32 with unused bits", []byte{0x80, 0x80, 0x80, 0x80, 0x70}, 32},
		{"truncated", []byte{0x80}, 32},
		{"empty", nil, 32},
	} {
		if r := NewReader(c.b); r.Uleb(c.bits) != 0 || r.Err == nil {
			t.Errorf("%s: accepted", c.name)
		}
	}
	// Padding within the width is allowed by the spec.
	if r := NewReader([]byte{0x81, 0x80, 0x00}); r.U32() != 1 || r.Err != nil {
		t.Errorf("padded 1: %v", r.Err)
	}
}

func TestReadFacts(t *testing.T) {
	sec := func(id byte, b ...byte) []byte { return AppendSection(nil, id, b) }
	wasm := []byte(Header)
	wasm = append(wasm, sec(SecImport, 2,
		1, 'e', 1, 'm', KindMemory, 0x01, 0x01, 0x02, // env.m: min 1 max 2
		1, 'e', 1, 't', KindTable, 0x70, 0x00, 0x03)...) // env.t: funcref min 3
	wasm = append(wasm, sec(SecTable, 1, 0x6f, 0x01, 0x00, 0x05)...)                                 // externref 0..5
	wasm = append(wasm, sec(SecMemory, 2, 0x00, 0x07, 0x03, 0x01, 0x02)...)                          // min 7; shared 1..2
	wasm = append(wasm, sec(SecExport, 2, 3, 'm', 'e', 'm', KindMemory, 2, 1, 't', KindTable, 1)...) // memory 2, table 1
	f, err := ReadFacts(wasm)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"memory 0 (imported from e.m) min 1, max 2",
		"memory 1 (not exported) min 7",
		`memory 2 (exported as "mem") min 1, max 2, shared`,
		"table 0 (imported from e.t) min 3",
		`table 1 (exported as "t") min 0, max 5`,
	}
	var got []string
	for _, m := range f.Memories {
		got = append(got, m.String()+" "+m.Limits.String())
	}
	for _, tb := range f.Tables {
		got = append(got, tb.String()+" "+tb.Limits.String())
	}
	if len(got) != len(want) {
		t.Fatalf("got %q", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("got %q, want %q", got[i], want[i])
		}
	}
	if _, err := ReadFacts([]byte("\x00asm\x02\x00\x00\x00")); err != ErrNotWasm {
		t.Errorf("version 2: %v", err)
	}
	if _, err := ReadFacts(append([]byte(Header), sec(SecMemory, 1, 0x08, 0x01)...)); err == nil {
		t.Error("limits flags 8 accepted")
	}
}

// The counts ReadFacts gives are the module's declarations, every form of
// element segment included (its constant expressions skipped correctly:
// the segment after each is read), on a module wazero accepts.
func TestReadFactsCounts(t *testing.T) {
	sec := func(id byte, b ...byte) []byte { return AppendSection(nil, id, b) }
	wasm := []byte(Header)
	for _, s := range [][]byte{
		sec(SecType, 1, 0x60, 0, 1, 0x7f),
		sec(SecImport, 1, 1, 'e', 1, 'f', KindFunc, 0),
		sec(SecFunction, 1, 0),
		sec(SecTable, 1, 0x70, 0x00, 0x0a),
		sec(SecMemory, 1, 0x00, 0x01),
		sec(SecGlobal, 2, 0x7f, 0x00, 0x41, 0x05, 0x0b, 0x7e, 0x01, 0x42, 0x80, 0x01, 0x0b),
		sec(SecExport, 2, 1, 'f', KindFunc, 1, 1, 'g', KindGlobal, 0),
		sec(SecElement, 8,
			0x00, 0x41, 0x00, 0x0b, 0x01, 0x00, // active, table 0, indices: 1
			0x01, 0x00, 0x02, 0x00, 0x01, // passive, indices: 2
			0x02, 0x00, 0x41, 0x01, 0x0b, 0x00, 0x01, 0x00, // active, table given, indices: 1
			0x03, 0x00, 0x01, 0x01, // declarative, indices: 1
			0x04, 0x41, 0x02, 0x0b, 0x02, 0xd2, 0x00, 0x0b, 0xd0, 0x70, 0x0b, // active, expressions: 2
			0x05, 0x70, 0x01, 0xd2, 0x01, 0x0b, // passive, expressions: 1
			0x06, 0x00, 0x41, 0x03, 0x0b, 0x70, 0x01, 0xd0, 0x70, 0x0b, // active, table given, expressions: 1
			0x07, 0x70, 0x01, 0xd2, 0x00, 0x0b), // declarative, expressions: 1
		sec(SecDataCnt, 2),
		sec(SecCode, 1, 4, 0x00, 0x41, 0x00, 0x0b),
		sec(SecData, 2, 0x01, 0x01, 'a', 0x00, 0x41, 0x00, 0x0b, 0x01, 'b'),
	} {
		wasm = append(wasm, s...)
	}
	ctx := context.Background()
	r := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfigInterpreter())
	defer r.Close(ctx)
	if _, err := r.CompileModule(ctx, wasm); err != nil {
		t.Fatalf("wazero refuses the test module: %v", err)
	}
	f, err := ReadFacts(wasm)
	if err != nil {
		t.Fatal(err)
	}
	want := Counts{Types: 1, Tables: 1, Imports: 1, Exports: 2, Globals: 2, TableElements: 10, ElementSegments: 8, Elements: 10, DataSegments: 2}
	if f.Counts != want {
		t.Fatalf("counts %+v, want %+v", f.Counts, want)
	}
	// A constant expression with an instruction that is not constant is
	// an error, not a misread.
	bad := append([]byte(Header), sec(SecElement, 1, 0x00, 0x20, 0x00, 0x0b, 0x00)...)
	if _, err := ReadFacts(bad); err == nil || !strings.Contains(err.Error(), "instruction 0x20 is not constant") {
		t.Fatalf("local.get in an offset: %v", err)
	}
}
