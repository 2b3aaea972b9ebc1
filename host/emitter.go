package host

import (
	"context"
	"sync"
)

// emitter delivers a run's events to its sink one at a time (docs/loop.md 15.1),
// from whichever goroutine produced them. After the sink fails once, every
// later emit returns that error without calling the sink.
type emitter struct {
	ctx  context.Context
	sink Sink

	mu  sync.Mutex
	err error
}

func (em *emitter) emit(e Event) error {
	em.mu.Lock()
	defer em.mu.Unlock()
	if em.err != nil {
		return em.err
	}
	_, em.err = safely("event sink", func() (struct{}, error) {
		return struct{}{}, em.sink(em.ctx, e)
	})
	return em.err
}

func (em *emitter) failed() error {
	em.mu.Lock()
	defer em.mu.Unlock()
	return em.err
}
