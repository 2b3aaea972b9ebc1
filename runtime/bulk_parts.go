package runtime

import (
	"context"
	"encoding/binary"
	"fmt"
	"time"
)

// ExportBulkParts is the bulk path's output in parts (docs/abi.md, "Output
// in parts"): called instead of ExportBulkOutput when the caller accepts
// parts (CallOptions.Parts), it returns the address << 32 | length of a
// table of little-endian u32 pairs (address, length): the head first,
// then each part. 0 means "the output is the Extism one", as for
// ExportBulkOutput. The host copies each straight out of the module's
// memory, so a module hands over a large text with no encoding and no
// copy of its own.
const ExportBulkParts = "wasmagent_bulk_output_v2"

// MaxParts bounds the parts of one output; the table, the head and the
// parts together are bounded by MaxOutputBytes.
const MaxParts = 1 << 16

// parts reads the output in parts: the head is returned, the parts
// set in *dst. ok is false when the module's export
// returned 0 (the output is the Extism one).
func (inst *instance) parts(ctx context.Context, export string, timeout time.Duration, dst *[]string) (head []byte, ok bool, err error) {
	p := inst.p
	res, err := inst.bulkCall(ctx, export, timeout, ExportBulkParts)
	if err != nil || res == 0 {
		return nil, false, err
	}
	broken := func(format string, args ...any) error {
		return &CallError{Plugin: p.name, Export: export, Err: because(ExportBulkParts+": "+fmt.Sprintf(format, args...), ErrTrap)}
	}
	ptr, n := uint32(res>>32), uint32(res)
	if n == 0 || n%8 != 0 || n/8-1 > MaxParts {
		return nil, false, broken("a table of %d bytes (it holds 8 bytes per entry, 1 to %d entries)", n, MaxParts+1)
	}
	mem := memoryOf(inst)
	var table []byte
	if mem != nil {
		table, ok = mem.Read(ptr, n)
	}
	if !ok {
		return nil, false, broken("a table of %d bytes at address %d, outside its memory of %d bytes", n, ptr, memSize(inst))
	}
	// The total is checked before anything is copied: the table's own
	// bytes count, so that the number of entries is bounded by the cap too.
	total := uint64(n)
	for i := 0; i < len(table); i += 8 {
		total += uint64(binary.LittleEndian.Uint32(table[i+4:]))
	}
	if total > uint64(p.grants.MaxOutputBytes) {
		return nil, false, &CallError{Plugin: p.name, Export: export, Err: &CapError{Cap: "MaxOutputBytes", Limit: int64(p.grants.MaxOutputBytes),
			Detail: fmt.Sprintf("%s: an output of %d bytes in %d parts, the table included", ExportBulkParts, total, len(table)/8-1)}}
	}
	// The head is copied out as bytes, each part as a string: one copy
	// each, straight from the module's memory.
	out := make([]string, 0, len(table)/8-1)
	for i := 0; i < len(table); i += 8 {
		at, size := binary.LittleEndian.Uint32(table[i:]), binary.LittleEndian.Uint32(table[i+4:])
		var b []byte
		if size > 0 {
			if b, ok = mem.Read(at, size); !ok {
				return nil, false, broken("entry %d: %d bytes at address %d, outside its memory of %d bytes", i/8, size, at, memSize(inst))
			}
		}
		if i == 0 {
			head = append([]byte(nil), b...)
		} else {
			out = append(out, string(b))
		}
	}
	*dst = out
	return head, true, nil
}

// partsBytes is the size of the parts a call's output came in.
func partsBytes(opts *CallOptions) int {
	n := 0
	if opts != nil && opts.Parts != nil {
		for _, p := range *opts.Parts {
			n += len(p)
		}
	}
	return n
}
