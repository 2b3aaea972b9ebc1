package runtime_test

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/wasmagent/wasmagent/internal/wasmbuild"
	"github.com/wasmagent/wasmagent/runtime"
)

// bulkEcho is a module with no language runtime that echoes its input
// through the bulk exports: the input goes to address 1024, its length to
// address 0, and the output is the same bytes.
func bulkEcho() []byte {
	const at = 1024
	return wasmbuild.Module{
		Funcs: []wasmbuild.Func{
			// i32.store (i32.const 0) (local.get 0); i32.const at
			{Params: []byte{wasmbuild.I32}, Results: []byte{wasmbuild.I32}, Body: ops(i32c(0), lget(0), []byte{0x36, 2, 0}, i32c(at))},
			// i64.or (i64.const at<<32) (i64.load32_u (i32.const 0))
			{Results: []byte{wasmbuild.I64}, Body: ops(i64c(at<<32), i32c(0), []byte{0x35, 2, 0}, []byte{0x84})},
			{Results: []byte{wasmbuild.I32}, Body: i32c(0)},
		},
		Exports:     map[string]uint32{runtime.ExportBulkInput: 0, runtime.ExportBulkOutput: 1, "echo": 2},
		MemoryPages: 20,
	}.Encode()
}

// benchABI measures the ABI alone on 1 MiB in and 1 MiB out: a go-pdk
// plugin's echo (the Extism input and output, 8 bytes a host call) and
// the bulk path (one copy each way), with no JSON work.
func benchABI(b *testing.B) {
	in := bytes.Repeat([]byte("0123456789abcdef"), 1<<16)
	for _, c := range []struct {
		name string
		p    func(b *testing.B) *runtime.Plugin
	}{
		{"abi-1MiB/go-pdk", func(b *testing.B) *runtime.Plugin {
			return plugin(b, "internal/testplugins/raw", runtime.PluginOptions{Name: "raw", PoolSize: 4})
		}},
		{"abi-1MiB/bulk", func(b *testing.B) *runtime.Plugin {
			return pluginOf(b, "bulk-echo.wasm", bulkEcho(), runtime.PluginOptions{PoolSize: 4})
		}},
	} {
		b.Run(c.name, func(b *testing.B) {
			p := c.p(b)
			time.Sleep(100 * time.Millisecond)
			for b.Loop() {
				out, err := p.Call(context.Background(), "echo", in, nil)
				if err != nil || len(out) != len(in) {
					b.Fatal(len(out), err)
				}
			}
		})
	}
}

// The bulk echo used by benchABI is correct, so that its figure means
// something.
func TestBulkEchoModule(t *testing.T) {
	p := pluginOf(t, "bulk-echo.wasm", bulkEcho(), runtime.PluginOptions{})
	in := bytes.Repeat([]byte("wasmagent"), 100000)
	out, calls, err := runtime.CallCountingHostCalls(context.Background(), p, "echo", in)
	if err != nil || !bytes.Equal(out, in) || calls != 0 {
		t.Fatalf("%d bytes back of %d, %d host calls, %v", len(out), len(in), calls, err)
	}
}
