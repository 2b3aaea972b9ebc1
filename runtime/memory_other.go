//go:build !linux && !darwin

package runtime

import "github.com/tetratelabs/wazero/experimental"

func allocate(capacity, limit uint64) experimental.LinearMemory {
	return &cappedMemory{limit: limit, capHint: capacity}
}
