package rpc

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"testing"
)

// BenchmarkLineWriter: a 1 KiB event line through the writer goroutine
// (what Serve does) against writing it directly (what it did), to a pipe
// a reader drains, as stdout is: the price of being able to give up a
// blocked write.
func BenchmarkLineWriter(b *testing.B) {
	line := bytes.Repeat([]byte("x"), 1<<10)
	pipe := func(b *testing.B) *os.File {
		r, w, err := os.Pipe()
		if err != nil {
			b.Fatal(err)
		}
		go io.Copy(io.Discard, r)
		b.Cleanup(func() { w.Close(); r.Close() })
		return w
	}
	b.Run("goroutine", func(b *testing.B) {
		w := newLineWriter(pipe(b))
		defer w.stop()
		b.SetBytes(int64(len(line)))
		for range b.N {
			w.write(line)
		}
	})
	b.Run("direct", func(b *testing.B) {
		out := bufio.NewWriter(pipe(b))
		b.SetBytes(int64(len(line)))
		for range b.N {
			out.Write(line)
			out.WriteByte('\n')
			out.Flush()
		}
	})
}
