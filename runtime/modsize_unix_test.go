//go:build unix

package runtime_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/wasmagent/wasmagent/runtime"
)

// ReadModule returns a file's bytes exactly, whatever its size against
// the limit, and whether or not its size was known when it was opened
// (a named pipe says 0): up to the limit, the bytes; past it, a
// ModuleSizeError, having read no more than a byte past the limit.
func TestReadModuleProperty(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(3, 5))
	dir := t.TempDir()
	for c := range 60 {
		limit := int64(1 + rng.IntN(20000))
		n := rng.Int64N(2*limit + 2)
		content := make([]byte, n)
		for i := range content {
			content[i] = byte(rng.IntN(256))
		}
		r, err := runtime.New(ctx, runtime.Options{CacheDir: "off", MaxModuleBytes: limit})
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, fmt.Sprintf("m%d", c))
		pipe := c%3 == 0
		if pipe {
			if err := syscall.Mkfifo(path, 0o600); err != nil {
				t.Skip("no named pipes here:", err)
			}
			go func() {
				f, err := os.OpenFile(path, os.O_WRONLY, 0)
				if err != nil {
					return
				}
				defer f.Close()
				f.Write(content) // cut short, with EPIPE, where the reader stops
			}()
		} else if err := os.WriteFile(path, content, 0o600); err != nil {
			t.Fatal(err)
		}
		got, err := r.ReadModule(path)
		kind := map[bool]string{true: "a pipe", false: "a file"}[pipe]
		var se *runtime.ModuleSizeError
		switch {
		case n <= limit && (err != nil || !bytes.Equal(got, content)):
			t.Fatalf("%s of %d bytes, limit %d: %d bytes, %v", kind, n, limit, len(got), err)
		case n > limit && !errors.As(err, &se):
			t.Fatalf("%s of %d bytes, limit %d: %d bytes, err %v, want a ModuleSizeError", kind, n, limit, len(got), err)
		case n > limit && (se.Max != limit || se.Size <= limit || se.Size > n || pipe && se.Size != limit+1):
			t.Fatalf("%s of %d bytes, limit %d: %+v", kind, n, limit, se)
		}
		r.Close(ctx)
	}
}
