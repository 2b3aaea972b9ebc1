package runtime

import (
	"context"
	"fmt"
	"reflect"
	"time"

	"github.com/tetratelabs/wazero/api"
)

// The bulk path (docs/abi.md, "Bulk transfer"): a module that exports both
// functions below gets its input written straight into its own linear
// memory and has its output read from there, one copy each way, instead
// of through the Extism ABI's host calls (8 bytes a call with go-pdk). A
// module without them (any plain Extism plugin) is called exactly as
// before.
const (
	// ExportBulkInput is called with the input's length before the call's
	// export and returns the address, in the module's memory, of that many
	// bytes the host writes the input into.
	ExportBulkInput = "wasmagent_bulk_input_v1"
	// ExportBulkOutput is called after the call's export returned 0 and
	// returns the output's address << 32 | its length, or 0 for "the
	// output is the Extism one (output_set)".
	ExportBulkOutput = "wasmagent_bulk_output_v1"
)

// bulkExports are the signatures of the bulk exports, checked at load
// with the other exports the host calls (hostExports).
var bulkExports = map[string]signature{
	ExportBulkInput:  {sig(i32), sig(i32)},
	ExportBulkOutput: {nil, sig(i64)},
	ExportBulkParts:  {nil, sig(i64)},
}

// bulk reports whether the module takes the bulk path: it exports both
// functions.
func (m *Module) bulk() bool {
	_, in := m.exports[ExportBulkInput]
	_, out := m.exports[ExportBulkOutput]
	return in && out
}

// input gives the call its input: through the bulk export when the module
// has both, else into host memory for the Extism input functions. In the
// bulk path the Extism input is empty.
func (inst *instance) input(ctx context.Context, export string, timeout time.Duration, input []byte) error {
	p := inst.p
	if !p.m.bulk() {
		if f := inst.st.setInput(input); f != nil {
			return &CallError{Plugin: p.name, Export: export, Err: f.err}
		}
		return nil
	}
	// Plugin.Call checked the length against MaxInputBytes; an input the
	// memory grant cannot hold is refused before the guest tries.
	if limit := min(uint64(p.grants.MemoryPages)<<16, uint64(^uint32(0))); uint64(len(input)) > limit {
		return &CallError{Plugin: p.name, Export: export, Err: &CapError{Cap: "MemoryPages", Limit: int64(p.grants.MemoryPages),
			Detail: fmt.Sprintf("the input of %d bytes does not fit in the plugin's memory of %d bytes", len(input), limit)}}
	}
	ptr, err := inst.bulkCall(ctx, export, timeout, ExportBulkInput, uint64(len(input)))
	if err != nil || len(input) == 0 {
		return err
	}
	// Memory.Write refuses a range that does not lie inside the memory:
	// the host writes nowhere but the len(input) bytes at the address
	// the guest gave, in the guest's own memory.
	if mem := memoryOf(inst); mem == nil || !mem.Write(uint32(ptr), input) {
		return &CallError{Plugin: p.name, Export: export, Err: because(fmt.Sprintf("%s returned address %d for an input of %d bytes, outside its memory of %d bytes",
			ExportBulkInput, uint32(ptr), len(input), memSize(inst)), ErrTrap)}
	}
	return nil
}

// output is a copy of the call's output: the one the bulk export names
// when the module has it and it names one, else the Extism output. When
// parts is not nil and the module has the bulk path and ExportBulkParts,
// the output is read in parts: the head is returned and the parts set in
// *parts.
func (inst *instance) output(ctx context.Context, export string, timeout time.Duration, parts *[]string) ([]byte, error) {
	p := inst.p
	if parts != nil && p.m.bulk() && p.m.HasExport(ExportBulkParts) {
		head, ok, err := inst.parts(ctx, export, timeout, parts)
		if err != nil || ok {
			return head, err
		}
	} else if p.m.bulk() {
		res, err := inst.bulkCall(ctx, export, timeout, ExportBulkOutput)
		if err != nil {
			return nil, err
		}
		if res != 0 {
			ptr, n := uint32(res>>32), uint32(res)
			if int64(n) > int64(p.grants.MaxOutputBytes) {
				return nil, &CallError{Plugin: p.name, Export: export, Err: &CapError{Cap: "MaxOutputBytes", Limit: int64(p.grants.MaxOutputBytes),
					Detail: fmt.Sprintf("%s: an output of %d bytes", ExportBulkOutput, n)}}
			}
			var b []byte
			ok := false
			if mem := memoryOf(inst); mem != nil {
				b, ok = mem.Read(ptr, n)
			}
			if !ok {
				return nil, &CallError{Plugin: p.name, Export: export, Err: because(fmt.Sprintf("%s returned an output of %d bytes at address %d, outside its memory of %d bytes",
					ExportBulkOutput, n, ptr, memSize(inst)), ErrTrap)}
			}
			return append([]byte(nil), b...), nil
		}
	}
	out, f := inst.st.outputBytes()
	if f != nil {
		return nil, &CallError{Plugin: p.name, Export: export, Err: f.err}
	}
	return append([]byte(nil), out...), nil
}

// bulkCall calls a bulk export within the call: its context, deadline,
// fuel and host functions. A failure is explained as the call's own
// (callError), labelled with the bulk export.
func (inst *instance) bulkCall(ctx context.Context, export string, timeout time.Duration, bulk string, params ...uint64) (uint64, error) {
	p := inst.p
	var res []uint64
	err := p.r.recovered(bulk, func() (err error) {
		res, err = inst.mod.ExportedFunction(bulk).Call(context.WithValue(ctx, stateKey{}, inst.st), params...)
		return err
	})
	if err == nil {
		err = stopped(ctx, timeout)
	}
	if err != nil {
		e := p.callError(export, ctx, timeout, inst.st, err)
		e.Err = fmt.Errorf("%s: %w", bulk, e.Err)
		return 0, e
	}
	return res[0], nil
}

// memoryOf is the instance's memory, or nil for a module without one
// (wazero then returns a nil pointer in a non-nil interface).
func memoryOf(inst *instance) api.Memory {
	mem := inst.mod.Memory()
	if mem == nil || reflect.ValueOf(mem).IsNil() {
		return nil
	}
	return mem
}

func memSize(inst *instance) uint32 {
	if mem := memoryOf(inst); mem != nil {
		return mem.Size()
	}
	return 0
}
