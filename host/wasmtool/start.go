package wasmtool

import (
	"context"
	"sync"
	"sync/atomic"
)

// Start holds the background loads of cached plugins (Options.Cache)
// until it is opened, so that a process can first do what it starts for
// (run: send the first model request) with the machine to itself: a Go
// plugin's load is some hundreds of milliseconds of CPU and tens of MB
// of allocation, which otherwise compete with that path for cores and
// the garbage collector. Anything that waits for a held plugin (a call,
// [Plugin.Wait]) opens it. A nil *Start is open.
type Start struct {
	once sync.Once
	ch   chan struct{}
	held atomic.Int32 // loads waiting for Open now
}

// NewStart is a Start that holds loads until Open.
func NewStart() *Start { return &Start{ch: make(chan struct{})} }

// Open lets the held loads go. Calling it again does nothing.
func (s *Start) Open() {
	if s != nil {
		s.once.Do(func() { close(s.ch) })
	}
}

// wait returns when s is open or ctx is done, with ctx's error then.
func (s *Start) wait(ctx context.Context) error {
	if s == nil {
		return ctx.Err()
	}
	s.held.Add(1)
	defer s.held.Add(-1)
	select {
	case <-s.ch:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Held is the number of loads waiting for s to open.
func (s *Start) Held() int {
	if s == nil {
		return 0
	}
	return int(s.held.Load())
}
