package runtime_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/wasmagent/wasmagent/internal/wasmbuild"
	"github.com/wasmagent/wasmagent/runtime"
	"github.com/wasmagent/wasmagent/sdk"
)

// An SDK plugin takes the bulk path: a 1 MiB input and a 1 MiB output
// cost a handful of host calls (the Extism path: one per 8 bytes each
// way, about 262000), and no host memory at all.
func TestBulkPathSDKPlugin(t *testing.T) {
	p := plugin(t, "internal/testplugins/probe", runtime.PluginOptions{Name: "probe",
		Grants: runtime.Grants{MaxHostAllocBytes: 64 << 10}})
	if !p.Module().HasExport(runtime.ExportBulkInput) || !p.Module().HasExport(runtime.ExportBulkOutput) {
		t.Fatalf("the SDK plugin exports %v, without the bulk exports", p.Module().Exports())
	}
	mib := strings.Repeat("x", 1<<20)
	in, _ := json.Marshal(sdk.ExecuteInput{ToolCallID: "c", Name: "echo", Args: mustJSON(map[string]string{"text": mib})})
	out, calls, err := runtime.CallCountingHostCalls(context.Background(), p, sdk.ExportExecute, in)
	if err != nil {
		t.Fatal(err)
	}
	var r sdk.Result
	if err := json.Unmarshal(out, &r); err != nil || text(&r) != mib {
		t.Fatalf("the echo of 1 MiB came back as %d bytes (%v)", len(out), err)
	}
	if calls > 16 {
		t.Fatalf("the call made %d host calls; the bulk path makes a few", calls)
	}
	t.Logf("1 MiB in and out with %d host calls", calls)

	// An error still goes through error_set.
	in, _ = json.Marshal(sdk.ExecuteInput{ToolCallID: "c", Name: "fail", Args: mustJSON(map[string]string{"message": "no luck"})})
	if _, err := p.Call(context.Background(), sdk.ExportExecute, in, nil); !errors.Is(err, runtime.ErrPlugin) || !strings.Contains(err.Error(), "no luck") {
		t.Fatalf("err = %v, want the plugin's own error", err)
	}
	// An empty input and the describe export.
	if out, err := p.Call(context.Background(), sdk.ExportDescribe, nil, nil); err != nil || !bytes.Contains(out, []byte(`"name":"probe"`)) {
		t.Fatalf("describe: %.80s %v", out, err)
	}
}

// A plain go-pdk plugin has no bulk exports and is called through the
// Extism ABI exactly as before: its echo is byte for byte, made with one
// host call per 8 bytes.
func TestBulkPathPlainExtismUnchanged(t *testing.T) {
	p := plugin(t, "internal/testplugins/raw", runtime.PluginOptions{Name: "raw"})
	if p.Module().HasExport(runtime.ExportBulkInput) {
		t.Fatal("a go-pdk plugin exports the bulk input")
	}
	in := make([]byte, 64<<10)
	for i := range in {
		in[i] = byte(i * 7)
	}
	out, calls, err := runtime.CallCountingHostCalls(context.Background(), p, "echo", in)
	if err != nil || !bytes.Equal(out, in) {
		t.Fatalf("echo: %d bytes back, %v", len(out), err)
	}
	if calls < len(in)/8 {
		t.Fatalf("%d host calls for %d bytes: not the Extism path", calls, len(in))
	}
}

// bulkModule is a hand-made module with the bulk exports: the input
// export returns inPtr whatever the length, the output export returns
// out (address << 32 | length), execute returns 0.
func bulkModule(inPtr uint32, out uint64, pages uint32) []byte {
	return wasmbuild.Module{
		Funcs: []wasmbuild.Func{
			{Params: []byte{wasmbuild.I32}, Results: []byte{wasmbuild.I32}, Body: i32c(int64(int32(inPtr)))},
			{Results: []byte{wasmbuild.I64}, Body: i64c(int64(out))},
			{Results: []byte{wasmbuild.I32}, Body: i32c(0)},
		},
		Exports:     map[string]uint32{runtime.ExportBulkInput: 0, runtime.ExportBulkOutput: 1, "execute": 2},
		MemoryPages: pages,
	}.Encode()
}

// checkBulk calls a bulkModule and checks the outcome against what the
// ABI allows: the input lands at inPtr and nowhere else, or the call
// fails as a broken ABI when it does not fit in the memory; an output
// over the cap is a cap error, one outside the memory a broken ABI; a
// zero output is the (empty) Extism one.
func checkBulk(t *testing.T, h *hostileRuntime, inPtr uint32, out uint64, pages uint32, input []byte, maxOut int) {
	t.Helper()
	m, err := h.Compile(context.Background(), "bulk.wasm", bulkModule(inPtr, out, pages))
	if err != nil {
		t.Fatal(err)
	}
	p, err := h.NewPlugin(m, runtime.PluginOptions{Grants: runtime.Grants{MemoryPages: 4, MaxOutputBytes: maxOut, Timeout: time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	got, err := p.Call(context.Background(), "execute", input, nil)
	memBytes := uint64(pages) << 16
	outPtr, outLen := out>>32, out&0xffffffff
	var want []byte
	wantErr := error(nil)
	switch {
	case len(input) > 0 && uint64(inPtr)+uint64(len(input)) > memBytes:
		wantErr = runtime.ErrTrap
	case out == 0:
	case outLen > uint64(maxOut):
		wantErr = runtime.ErrCap
	case outPtr+outLen > memBytes:
		wantErr = runtime.ErrTrap
	default:
		mem := make([]byte, memBytes)
		if len(input) > 0 {
			copy(mem[inPtr:], input)
		}
		want = mem[outPtr : outPtr+outLen]
	}
	if wantErr != nil {
		if !errors.Is(err, wantErr) || causeOf(t, err) == "ErrHost" {
			t.Fatalf("in %d, out %#x, %d pages, %d bytes of input: err = %v, want %v", inPtr, out, pages, len(input), err, wantErr)
		}
		return
	}
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("in %d, out %#x, %d pages, %d bytes of input: %d bytes (%v), want %d bytes", inPtr, out, pages, len(input), len(got), err, len(want))
	}
}

func packOut(ptr, n uint32) uint64 { return uint64(ptr)<<32 | uint64(n) }

// A hostile module's bulk exports may return any address and length: the
// host writes the input at the address it was given when, and only when,
// it fits in the module's memory, and reads no output past the memory or
// over the cap.
func TestHostileBulkExports(t *testing.T) {
	h := newHostileRuntime(t)
	input := []byte("0123456789abcdef")
	for _, c := range []struct {
		name  string
		inPtr uint32
		out   uint64
		pages uint32
	}{
		{"the whole page back: the input at 100 and zeros around it", 100, packOut(0, 1<<16), 1},
		{"the input at the very end of the memory", 1<<16 - 16, packOut(1<<16-32, 32), 1},
		{"the input one byte past the end", 1<<16 - 15, packOut(0, 1), 1},
		{"the input at the last address", 0xffffffff, packOut(0, 1), 1},
		{"no memory at all", 0, packOut(0, 1), 0},
		{"the output one byte past the end", 0, packOut(1<<16-1, 2), 1},
		{"an output address that wraps", 0, packOut(0xffffffff, 2), 1},
		{"an output over the cap", 0, packOut(0, 4097), 1},
		{"an output of 4 GiB - 1", 0, packOut(0, 0xffffffff), 1},
		{"no bulk output: the Extism one, empty", 0, 0, 1},
		{"an empty output at an address", 5, packOut(7, 0), 1},
	} {
		t.Run(c.name, func(t *testing.T) { checkBulk(t, h, c.inPtr, c.out, c.pages, input, 4096) })
	}
	t.Run("an empty input writes nothing", func(t *testing.T) { checkBulk(t, h, 0xffffffff, packOut(0, 64), 1, nil, 4096) })
}

// The bulk exports run within the call: one that traps, loops or calls a
// host function wrongly fails the call with its own cause, naming the
// export; one with the wrong signature is refused at load.
func TestHostileBulkExportsMisbehave(t *testing.T) {
	h := newHostileRuntime(t)
	mod := func(in, out []byte) []byte {
		return wasmbuild.Module{
			Funcs: []wasmbuild.Func{
				{Params: []byte{wasmbuild.I32}, Results: []byte{wasmbuild.I32}, Body: in},
				{Results: []byte{wasmbuild.I64}, Body: out},
				{Results: []byte{wasmbuild.I32}, Body: i32c(0)},
			},
			Exports:     map[string]uint32{runtime.ExportBulkInput: 0, runtime.ExportBulkOutput: 1, "execute": 2},
			MemoryPages: 1,
		}.Encode()
	}
	g := runtime.Grants{MemoryPages: 4, Timeout: 200 * time.Millisecond}
	for _, c := range []struct {
		name    string
		wasm    []byte
		want    error
		naming  string
		compile bool
	}{
		{"the input export traps", mod(opTrap, i64c(0)), runtime.ErrTrap, runtime.ExportBulkInput, false},
		{"the output export traps", mod(i32c(0), opTrap), runtime.ErrTrap, runtime.ExportBulkOutput, false},
		{"the input export never returns", mod(ops(forever(), i32c(0)), i64c(0)), runtime.ErrTimeout, runtime.ExportBulkInput, false},
		{"the output export never returns", mod(i32c(0), ops(forever(), i64c(0))), runtime.ErrTimeout, runtime.ExportBulkOutput, false},
		{"the input export has the wrong signature", wasmbuild.Module{
			Funcs:   []wasmbuild.Func{{Results: []byte{wasmbuild.I32}, Body: i32c(0)}, {Results: []byte{wasmbuild.I64}, Body: i64c(0)}},
			Exports: map[string]uint32{runtime.ExportBulkInput: 0, runtime.ExportBulkOutput: 1, "execute": 0}, MemoryPages: 1,
		}.Encode(), nil, runtime.ExportBulkInput, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			o := h.run(t, c.name, c.wasm, g)
			if c.compile {
				if o.stage != "compile" || !strings.Contains(o.err.Error(), c.naming) {
					t.Fatalf("%s: %v, want it refused at load naming %s", o.stage, o.err, c.naming)
				}
				return
			}
			if o.stage != "call" || !errors.Is(o.err, c.want) || !strings.Contains(o.err.Error(), c.naming) {
				t.Fatalf("%s: %v, want %v naming %s", o.stage, o.err, c.want, c.naming)
			}
		})
	}
	// A module with only one of the two is a plain Extism module.
	one := wasmbuild.Module{
		Funcs:   []wasmbuild.Func{{Params: []byte{wasmbuild.I32}, Results: []byte{wasmbuild.I32}, Body: opTrap}, {Results: []byte{wasmbuild.I32}, Body: i32c(0)}},
		Exports: map[string]uint32{runtime.ExportBulkInput: 0, "execute": 1}, MemoryPages: 1,
	}.Encode()
	p, err := h.NewPlugin(mustCompile(t, h.Runtime, one), runtime.PluginOptions{Grants: g})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if out, err := p.Call(context.Background(), "execute", []byte("in"), nil); err != nil || len(out) != 0 {
		t.Fatalf("a module with only the input export: %q %v", out, err)
	}
}

// Generated bulk exports: every address, length and memory size a hostile
// module may return is checked against the oracle of checkBulk.
func FuzzBulkExports(f *testing.F) {
	f.Add(uint32(100), uint64(1<<16), uint8(1), uint16(16), uint16(4096))
	f.Add(uint32(1<<16-16), packOut(1<<16-32, 32), uint8(1), uint16(16), uint16(64))
	f.Add(uint32(0xffffffff), packOut(0xffffffff, 0xffffffff), uint8(0), uint16(1), uint16(1))
	f.Add(uint32(1<<17-3), packOut(1<<17-3, 3), uint8(2), uint16(3), uint16(3))
	h := newHostileRuntime(f)
	f.Fuzz(func(t *testing.T, inPtr uint32, out uint64, pages uint8, inLen, maxOut uint16) {
		input := make([]byte, inLen)
		if len(input) >= 4 {
			binary.LittleEndian.PutUint32(input, inPtr)
		}
		for i := 4; i < len(input); i++ {
			input[i] = byte(i)
		}
		checkBulk(t, h, inPtr, out, uint32(pages%3), input, int(maxOut)+1)
	})
}

// The AssemblyScript SDK takes the bulk path too (TestASSameOutputsAsExtism
// checks the outputs are the ones plain Extism gets).
func TestBulkPathASPlugin(t *testing.T) {
	p := pluginOf(t, "text.wasm", asText(t), runtime.PluginOptions{Name: "text"})
	if !p.Module().HasExport(runtime.ExportBulkInput) || !p.Module().HasExport(runtime.ExportBulkOutput) {
		t.Fatalf("the AssemblyScript plugin exports %v, without the bulk exports", p.Module().Exports())
	}
	text := strings.Repeat("a line of text\n", 1<<14)
	in, _ := json.Marshal(sdk.ExecuteInput{ToolCallID: "c", Name: "lines", Args: mustJSON(map[string]any{"text": text, "start": 1})})
	out, calls, err := runtime.CallCountingHostCalls(context.Background(), p, sdk.ExportExecute, in)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(out, []byte("a line of text")) || len(out) < len(text) {
		t.Fatalf("%d bytes: %.200s", len(out), out)
	}
	if calls > 16 {
		t.Fatalf("%d host calls for %d bytes in and %d out", calls, len(in), len(out))
	}
}
