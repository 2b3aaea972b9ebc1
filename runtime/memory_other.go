//go:build !linux && !darwin

package runtime

import "github.com/tetratelabs/wazero/experimental"

func allocate(capacity, limit uint64) experimental.LinearMemory {
	return &cappedMemory{limit: limit, capHint: capacity}
}

// No spare memories where memories are not mappings.
const maxSpares = 0

func (*image) takeSpare(uint64) experimental.LinearMemory { return nil }
func (*image) recycling(experimental.LinearMemory)        {}
func (*image) dropSpares()                                {}
func drainSpares(chan *mappedMemory)                      {}

// mappedMemory is not built where memories are not mappings.
type mappedMemory struct{}
