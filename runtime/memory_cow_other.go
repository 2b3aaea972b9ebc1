//go:build !linux

package runtime

import (
	"errors"

	"github.com/tetratelabs/wazero/experimental"
)

// cowImage is not built outside Linux (no memfd): images are copied.
type cowImage struct {
	size uint64
	view []byte
}

func newCowImage(uint64, []imageRun) (*cowImage, error) {
	return nil, errors.New("copy-on-write images need Linux's memfd")
}

func (*cowImage) mapMemory(uint64) experimental.LinearMemory { return nil }
func (*cowImage) read(func([]byte)) bool                     { return false }
func (*cowImage) release()                                   {}
