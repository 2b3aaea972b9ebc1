package runtime

import (
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
)

// DefaultMaxModuleBytes is the default of Options.MaxModuleBytes: above
// every real plugin we know (a Go plugin is 4–15 MB, an interpreter with
// its standard library some tens), and below what would hold the host
// for long (RATIONALE.md, "Why is a module's size capped at load?").
const DefaultMaxModuleBytes = 128 << 20

// ErrModuleSize: a module is over Options.MaxModuleBytes; it is refused
// with a [*ModuleSizeError] before more than the cap is read.
var ErrModuleSize = errors.New("the module is larger than the host allows")

// ModuleSizeError is a module refused for its size. It matches
// [ErrModuleSize].
type ModuleSizeError struct {
	Size int64 // its size, or at least this when it was not read whole
	Max  int64 // Options.MaxModuleBytes
}

func (e *ModuleSizeError) Error() string {
	return fmt.Sprintf("the module is %d bytes, over the host's limit of %d (runtime.Options.MaxModuleBytes; in agent.toml, [runtime] max_module_bytes)", e.Size, e.Max)
}

func (e *ModuleSizeError) Is(target error) bool { return target == ErrModuleSize }

// ReadModule reads the module file at path, refusing one over
// Options.MaxModuleBytes without reading more than that: a file larger
// than its size said when opened, or one with no end (a device), stops
// there too.
func (r *Runtime) ReadModule(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	limit := r.opts.MaxModuleBytes
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if fi.Size() > limit {
		return nil, &ModuleSizeError{Size: fi.Size(), Max: limit}
	}
	// One buffer of the size the file said, and a byte more to see it
	// end there: io.ReadAll grows from 512 bytes, copying a module of
	// megabytes a dozen times over on every load.
	b := make([]byte, 0, fi.Size()+1)
	for {
		n, err := f.Read(b[len(b):min(int64(cap(b)), limit+1)])
		b = b[:len(b)+n]
		if int64(len(b)) > limit {
			return nil, &ModuleSizeError{Size: int64(len(b)), Max: limit}
		}
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return nil, err
		}
		if len(b) == cap(b) {
			// Longer than it said when opened: go on, a bounded step
			// at a time, to the limit.
			b = slices.Grow(b, int(min(limit+1-int64(len(b)), max(int64(len(b)), 4096))))
		}
	}
}

// checkModuleSize refuses a module over Options.MaxModuleBytes.
func (r *Runtime) checkModuleSize(wasm []byte) error {
	if n := int64(len(wasm)); n > r.opts.MaxModuleBytes {
		return &ModuleSizeError{Size: n, Max: r.opts.MaxModuleBytes}
	}
	return nil
}
