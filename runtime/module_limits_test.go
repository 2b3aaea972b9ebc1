package runtime

import (
	"context"
	"strings"
	"testing"

	g "github.com/wasmagent/wasmagent/runtime/internal/wasmgen"
)

// Every memory and table is read at Compile, exported or not, imported or
// defined: one over the host's limits is refused with a message naming it,
// never handed to wazero (whose allocator panics on a minimum over the
// limit), and the largest minimum is what NewPlugin checks the grant
// against.
func TestCompileReadsEveryMemoryAndTable(t *testing.T) {
	ctx := context.Background()
	r, err := New(ctx, Options{CacheDir: "off", MaxMemoryPages: 64})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close(ctx)
	typ := g.Sec(1, g.Vec(1, []byte{0x60, 0, 1, 0x7f}))
	fn := g.Sec(3, g.Vec(1, g.U(0)))
	code := g.Sec(10, g.Vec(1, g.Body(g.U(0), 0x41, 0x00)))
	exp := func(kind byte, name string) []byte { return g.Sec(7, g.Vec(1, g.Str(name), []byte{kind}, g.U(0))) }
	mem := func(min uint32) []byte { return g.Sec(5, g.Vec(1, append([]byte{0x00}, g.U(min)...))) }
	for _, c := range []struct {
		name string
		wasm []byte
		want string // "" when it compiles
	}{
		{"hidden memory over the limit", g.Module(typ, fn, mem(65), code), "memory 0 (not exported) needs 65 pages at start, more than the host's limit of 64 pages"},
		{"exported memory over the limit", g.Module(typ, fn, mem(100), exp(2, "memory"), code), `memory 0 (exported as "memory") needs 100 pages`},
		{"imported memory", g.Module(typ, g.Sec(2, g.Vec(1, g.Str("env"), g.Str("m"), []byte{0x02, 0x00, 0x01})), fn, code), "imports a memory (env.m)"},
		{"shared memory", g.Module(typ, fn, g.Sec(5, g.Vec(1, []byte{0x03, 0x01, 0x02})), code), "64-bit and shared memories are refused"},
		{"memory64", g.Module(typ, fn, g.Sec(5, g.Vec(1, []byte{0x04, 0x01})), code), "64-bit and shared memories are refused"},
		{"hidden table over the limit", g.Module(typ, fn, g.Sec(4, g.Vec(1, append([]byte{0x70, 0x00}, g.U(1<<20+1)...))), code), "table 0 (not exported) has 1048577 elements at start"},
		{"imported table", g.Module(typ, g.Sec(2, g.Vec(1, g.Str("env"), g.Str("t"), []byte{0x01, 0x70, 0x00, 0x01})), fn, code), "imports a table (env.t)"},
		{"hidden memory at the limit", g.Module(typ, fn, mem(64), code), ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			m, err := r.Compile(ctx, "m.wasm", c.wasm)
			if c.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				// The grant check of NewPlugin sees the hidden memory.
				if _, err := r.NewPlugin(m, PluginOptions{Grants: Grants{MemoryPages: 32}}); err == nil || !strings.Contains(err.Error(), "needs 64 pages of memory at start, more than its grant of 32") {
					t.Fatalf("NewPlugin: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "m.wasm: ") {
				t.Fatalf("err = %v, want %q", err, c.want)
			}
		})
	}
}
