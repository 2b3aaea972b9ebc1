package runtime_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/wasmagent/wasmagent/internal/wasmbuild"
	"github.com/wasmagent/wasmagent/runtime"
)

// partsModule is a hand-made module on the bulk path whose output in
// parts returns ret; mem is its memory's data from address 0 (a table
// and what it points at).
func partsModule(mem []byte, ret uint64, pages uint32) []byte {
	return wasmbuild.Module{
		Funcs: []wasmbuild.Func{
			{Params: []byte{wasmbuild.I32}, Results: []byte{wasmbuild.I32}, Body: i32c(0)},
			{Results: []byte{wasmbuild.I64}, Body: i64c(0)},
			{Results: []byte{wasmbuild.I64}, Body: i64c(int64(ret))},
			{Results: []byte{wasmbuild.I32}, Body: i32c(0)},
		},
		Exports: map[string]uint32{runtime.ExportBulkInput: 0, runtime.ExportBulkOutput: 1,
			runtime.ExportBulkParts: 2, "execute": 3},
		MemoryPages: pages,
		Data:        mem,
	}.Encode()
}

// wantParts is what the ABI says a call of a partsModule gives: the head
// and the parts, or the error's cause. An independent reading of
// docs/abi.md, "Output in parts".
func wantParts(mem []byte, memBytes uint64, ret uint64, maxOut int) (head []byte, parts []string, want error) {
	if ret == 0 {
		return nil, nil, nil // the Extism output: empty, no parts
	}
	at := func(ptr, n uint64) ([]byte, bool) {
		if ptr+n > memBytes {
			return nil, false
		}
		b := make([]byte, n)
		if ptr < uint64(len(mem)) {
			copy(b, mem[ptr:])
		}
		return b, true
	}
	ptr, n := ret>>32, ret&0xffffffff
	if n == 0 || n%8 != 0 || n/8-1 > runtime.MaxParts {
		return nil, nil, runtime.ErrTrap
	}
	table, ok := at(ptr, n)
	if !ok {
		return nil, nil, runtime.ErrTrap
	}
	total := n
	for i := uint64(0); i < n; i += 8 {
		total += uint64(binary.LittleEndian.Uint32(table[i+4:]))
	}
	if total > uint64(maxOut) {
		return nil, nil, runtime.ErrCap
	}
	for i := uint64(0); i < n; i += 8 {
		p, size := binary.LittleEndian.Uint32(table[i:]), binary.LittleEndian.Uint32(table[i+4:])
		b := []byte{}
		if size > 0 {
			if b, ok = at(uint64(p), uint64(size)); !ok {
				return nil, nil, runtime.ErrTrap
			}
		}
		if i == 0 {
			head = b
		} else {
			parts = append(parts, string(b))
		}
	}
	return head, parts, nil
}

// checkParts calls a partsModule and checks the outcome against wantParts;
// without CallOptions.Parts the output export in parts is never called.
func checkParts(t *testing.T, h *hostileRuntime, mem []byte, ret uint64, pages uint32, maxOut int) {
	t.Helper()
	m, err := h.Compile(context.Background(), "parts.wasm", partsModule(mem, ret, pages))
	if err != nil {
		t.Fatal(err)
	}
	p, err := h.NewPlugin(m, runtime.PluginOptions{Grants: runtime.Grants{MemoryPages: 4, MaxOutputBytes: maxOut, Timeout: time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if out, err := p.Call(context.Background(), "execute", nil, nil); err != nil || len(out) != 0 {
		t.Fatalf("without Parts: %q %v, want the (empty) Extism output", out, err)
	}
	var parts []string
	got, err := p.Call(context.Background(), "execute", nil, &runtime.CallOptions{Parts: &parts})
	head, wantedParts, want := wantParts(mem, uint64(pages)<<16, ret, maxOut)
	if want != nil {
		if !errors.Is(err, want) || causeOf(t, err) == "ErrHost" || parts != nil {
			t.Fatalf("table at %#x, %d pages: err = %v, %d parts; want %v and none", ret, pages, err, len(parts), want)
		}
		return
	}
	if err != nil || !bytes.Equal(got, head) || !slices.Equal(parts, wantedParts) || (ret != 0) != (parts != nil) {
		t.Fatalf("table at %#x, %d pages: head %q, %d parts (%v); want %q, %d parts", ret, pages, got, len(parts), err, head, len(wantedParts))
	}
}

// table encodes entries (address, length) as the output in parts reads
// them.
func table(entries ...uint32) []byte {
	var b []byte
	for _, e := range entries {
		b = binary.LittleEndian.AppendUint32(b, e)
	}
	return b
}

// A hostile module's table may say anything: entries outside the memory,
// lengths over the cap or summing past 4 GiB, a table of no entries or of
// a length that is not whole entries. The host copies exactly what lies
// inside the memory and within the cap, and otherwise fails the call as a
// broken ABI or a cap, never the host.
func TestHostileBulkParts(t *testing.T) {
	h := newHostileRuntime(t)
	text := []byte("head!part one, part two")
	mem := append(table(64, 5, 69, 9, 78, 9), make([]byte, 64-24)...)
	mem = append(mem, text...)
	for _, c := range []struct {
		name  string
		mem   []byte
		ret   uint64
		pages uint32
	}{
		{"a head and two parts", mem, packOut(0, 24), 1},
		{"a head alone", mem, packOut(0, 8), 1},
		{"no output in parts: the Extism one", mem, 0, 1},
		{"a table of no entries", mem, packOut(0, 0), 1},
		{"a table of 12 bytes", mem, packOut(0, 12), 1},
		{"a table outside the memory", mem, packOut(1<<16-8, 16), 1},
		{"a table at an address that wraps", mem, packOut(0xfffffff8, 16), 1},
		{"a table of more than MaxParts entries", mem, packOut(0, 8*(runtime.MaxParts+2)), 4},
		{"a part one byte past the memory", table(0, 0, 1<<16-4, 5), packOut(0, 16), 1},
		{"a part at the very end", table(0, 0, 1<<16-4, 4), packOut(0, 16), 1},
		{"empty parts anywhere", table(0xffffffff, 0, 0xfffffff0, 0), packOut(0, 16), 1},
		{"lengths over the cap", table(0, 4000, 0, 100), packOut(0, 16), 1},
		{"lengths that sum past 4 GiB", table(0, 0xffffffff, 0, 0xffffffff), packOut(0, 16), 1},
		{"no memory", nil, packOut(0, 8), 0},
	} {
		t.Run(c.name, func(t *testing.T) { checkParts(t, h, c.mem, c.ret, c.pages, 4096) })
	}
}

// Generated tables: any entries, any return value, any cap, checked
// against wantParts.
func FuzzBulkParts(f *testing.F) {
	f.Add(table(64, 5, 69, 9), uint32(0), uint16(16), uint16(4096))
	f.Add(table(0, 0xffffffff, 8, 8), uint32(0), uint16(16), uint16(100))
	f.Add(table(1<<16-1, 1), uint32(1<<16-8), uint16(8), uint16(4096))
	h := newHostileRuntime(f)
	f.Fuzz(func(t *testing.T, mem []byte, ptr uint32, n uint16, maxOut uint16) {
		if len(mem) > 1<<16 {
			mem = mem[:1<<16]
		}
		checkParts(t, h, mem, packOut(ptr, uint32(n)), 1, int(maxOut)+1)
	})
}

// The output export in parts with another signature is refused at load,
// naming it, as the v1 exports are.
func TestBulkPartsWrongSignature(t *testing.T) {
	h := newHostileRuntime(t)
	wasm := wasmbuild.Module{
		Funcs: []wasmbuild.Func{
			{Params: []byte{wasmbuild.I32}, Results: []byte{wasmbuild.I32}, Body: i32c(0)},
			{Results: []byte{wasmbuild.I64}, Body: i64c(0)},
			{Results: []byte{wasmbuild.I32}, Body: i32c(0)},
		},
		Exports: map[string]uint32{runtime.ExportBulkInput: 0, runtime.ExportBulkOutput: 1,
			runtime.ExportBulkParts: 2, "execute": 2},
		MemoryPages: 1,
	}.Encode()
	o := h.run(t, "parts-signature", wasm, runtime.Grants{Timeout: time.Second})
	if o.stage != "compile" || !strings.Contains(o.err.Error(), runtime.ExportBulkParts) {
		t.Fatalf("%s: %v, want it refused at load naming %s", o.stage, o.err, runtime.ExportBulkParts)
	}
}
