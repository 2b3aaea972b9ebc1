package host

import (
	"context"
	"sync"
)

// emitter delivers a run's events to its sink one at a time and in the
// order they were handed over (docs/loop.md 15.1), from whichever goroutine
// produced them. emit waits for its event; post only queues it, so that a
// running tool is never held up by a slow subscriber (pi's onUpdate starts
// the delivery and goes on). After the sink fails once, no later event
// reaches it and every emit returns that error.
type emitter struct {
	ctx  context.Context
	sink Sink

	mu    sync.Mutex
	err   error
	busy  bool       // someone is delivering; new events queue behind it
	queue []*pending // handed over, not yet delivered
}

// pending is a queued event; done is closed once it has been delivered
// (or skipped after a sink failure).
type pending struct {
	e    Event
	done chan struct{}
}

// emit delivers e after every event handed over before it, and returns the
// sink's error, if any.
func (em *emitter) emit(e Event) error {
	em.mu.Lock()
	if em.err != nil {
		defer em.mu.Unlock()
		return em.err
	}
	if em.busy {
		p := &pending{e: e, done: make(chan struct{})}
		em.queue = append(em.queue, p)
		em.mu.Unlock()
		<-p.done
		return em.failed()
	}
	em.busy = true
	em.mu.Unlock()
	em.deliver(e)
	em.release()
	return em.failed()
}

// post queues e for delivery and returns at once; the channel is closed
// when e has been delivered.
func (em *emitter) post(e Event) <-chan struct{} {
	p := &pending{e: e, done: make(chan struct{})}
	em.mu.Lock()
	defer em.mu.Unlock()
	if em.err != nil {
		close(p.done)
		return p.done
	}
	em.queue = append(em.queue, p)
	if !em.busy {
		em.busy = true
		go em.drain()
	}
	return p.done
}

// release ends the caller's turn at delivering: the queue, if any, is
// drained by a goroutine of its own so that the caller can go on.
func (em *emitter) release() {
	em.mu.Lock()
	defer em.mu.Unlock()
	if len(em.queue) == 0 {
		em.busy = false
		return
	}
	go em.drain()
}

// drain delivers queued events until the queue is empty.
func (em *emitter) drain() {
	for {
		em.mu.Lock()
		if len(em.queue) == 0 {
			em.busy = false
			em.mu.Unlock()
			return
		}
		p := em.queue[0]
		em.queue[0] = nil
		em.queue = em.queue[1:]
		skip := em.err != nil
		em.mu.Unlock()
		if !skip {
			em.deliver(p.e)
		}
		close(p.done)
	}
}

// deliver calls the sink once; only the delivering goroutine calls it.
func (em *emitter) deliver(e Event) {
	_, err := safely("event sink", func() (struct{}, error) {
		return struct{}{}, em.sink(em.ctx, e)
	})
	if err != nil {
		em.mu.Lock()
		if em.err == nil {
			em.err = err
		}
		em.mu.Unlock()
	}
}

func (em *emitter) failed() error {
	em.mu.Lock()
	defer em.mu.Unlock()
	return em.err
}
