package hosttest

import (
	"bytes"
	"sync"
)

// Buffer is a bytes.Buffer safe for concurrent use: one goroutine writes
// (a child's stderr, an approver's prompts) while a test reads.
type Buffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

// Write implements io.Writer.
func (s *Buffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

// String returns what was written so far.
func (s *Buffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
