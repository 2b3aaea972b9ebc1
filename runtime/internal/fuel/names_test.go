package fuel

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/tetratelabs/wazero"
	"github.com/wasmagent/wasmagent/runtime/internal/wasmbin"
	g "github.com/wasmagent/wasmagent/runtime/internal/wasmgen"
)

// namesModule is a module of two functions whose name section holds the
// subsections given, in order.
func namesModule(subs ...[]byte) []byte {
	names := g.Str("name")
	for _, s := range subs {
		names = append(names, s...)
	}
	return g.Module(g.Sec(1, g.Vec(1, []byte{0x60, 0, 0})), g.Sec(3, g.Vec(2, g.U(0), g.U(0))),
		g.Sec(10, g.Vec(2, g.Body(g.U(0)), g.Body(g.U(0)))), g.Sec(0, names))
}

// funcNames is a subsection of function names for the indices given.
func funcNames(idx ...uint32) []byte {
	var b []byte
	for _, i := range idx {
		b = append(append(b, g.U(i)...), g.Str("f")...)
	}
	return wasmbin.AppendSection(nil, 1, append(g.U(uint32(len(idx))), b...))
}

// localNames is a subsection naming n locals of function 0, each name.
func localNames(n int, name string) []byte {
	b := append(g.U(1), g.U(0)...)
	b = append(b, g.U(uint32(n))...)
	for i := range n {
		b = append(append(b, g.U(uint32(i))...), g.Str(name)...)
	}
	return wasmbin.AppendSection(nil, 2, b)
}

// subsections lists the ids of the subsections of the output's name
// section.
func subsections(t *testing.T, wasm []byte) []byte {
	secs, err := wasmbin.Sections(wasm)
	if err != nil {
		t.Fatal(err)
	}
	var ids []byte
	for _, s := range secs {
		r := wasmbin.NewReader(s.Body)
		if name, _ := r.Name(); s.ID != wasmbin.SecCustom || name != "name" {
			continue
		}
		for r.More() {
			ids = append(ids, r.Byte())
			r.Bytes(int(r.U32()))
		}
	}
	return ids
}

// The name section keeps what a host reads of it and no more: function
// names once, in increasing order of index, so at most one a function;
// local names, which wazero keeps 24 bytes each for (their indices
// unchecked: 8 MiB of them held 87 MiB for the module's life), are
// checked as wazero would check them and dropped. Every output stays
// valid, and a local name that is not UTF-8 still refuses the module.
func TestNameSectionKeepsOnlyFunctionNames(t *testing.T) {
	ctx := context.Background()
	r := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfigInterpreter())
	defer r.Close(ctx)
	for _, c := range []struct {
		what string
		wasm []byte
		want []byte // the subsections kept
	}{
		{"function and local names", namesModule(funcNames(0, 1), localNames(3, "x")), []byte{1}},
		{"function names twice", namesModule(funcNames(0), funcNames(1)), []byte{1}},
		{"function names out of order", namesModule(funcNames(1, 0)), nil},
		{"one function named again and again", namesModule(funcNames(0, 0, 0, 0)), nil},
		{"16,384 local names", namesModule(localNames(1<<14, "")), nil}, // what is dropped, whatever the count: a million took 2 s under the race detector
		{"a module name", namesModule(wasmbin.AppendSection(nil, 0, g.Str("m"))), []byte{0}},
	} {
		if _, err := r.CompileModule(ctx, c.wasm); err != nil {
			t.Fatalf("%s: wazero refuses the test module: %v", c.what, err)
		}
		out, err := Instrument(c.wasm, Options{})
		if err != nil {
			t.Fatalf("%s: %v", c.what, err)
		}
		if got := subsections(t, out); !bytes.Equal(got, c.want) {
			t.Errorf("%s: subsections %v kept, want %v", c.what, got, c.want)
		}
		if _, err := r.CompileModule(ctx, out); err != nil {
			t.Errorf("%s: the output is not valid: %v", c.what, err)
		}
	}
	bad := namesModule(localNames(1, "\xff"))
	if _, err := r.CompileModule(ctx, bad); err == nil {
		t.Fatal("wazero accepts a local name that is not UTF-8")
	}
	if _, err := Instrument(bad, Options{}); err == nil || !strings.Contains(err.Error(), "UTF-8") {
		t.Fatalf("a local name that is not UTF-8: %v, want the module refused", err)
	}
}
