package host

import (
	"context"
	"sync"
)

// emitter delivers a run's events to its sink one at a time and in the
// order they were handed over (docs/loop.md 15.1), from whichever goroutine
// produced them. emit waits for its event; post only queues it, so that a
// running tool is never held up by a slow subscriber (pi's onUpdate starts
// the delivery and goes on). After the sink fails on an emitted event, no
// later event reaches it and every emit returns that error. A failure on a
// posted event is that event's alone (pi's onUpdate does not stop the
// deliveries that follow): post's caller learns of it from wait.
//
// What posted events the queue holds is bounded in bytes (limit, default
// MaxQueuedUpdateBytes; see queuebound.go): past it, a queued update that
// a later one of the same tool call supersedes is left out, and an update
// that still does not fit is dropped. Nothing ever waits for room, so no
// poster can deadlock on the sink, and a sink that keeps the queue under
// the bound gets every event.
type emitter struct {
	ctx   context.Context
	sink  Sink
	limit int // bound on the queued posted events' cost; 0: MaxQueuedUpdateBytes

	mu    sync.Mutex
	err   error
	busy  bool       // someone is delivering; new events queue behind it
	queue []*pending // handed over, not yet delivered
	held  int        // cost of the posted events in queue
}

// pending is a queued event; done is closed once it has been delivered
// (or skipped after a sink failure, or left out by the bound). A posted
// event's own failure is err.
type pending struct {
	e      Event
	done   chan struct{}
	posted bool
	err    error
	cost   int    // what it counts against the bound (posted events only)
	call   string // the tool call a posted update belongs to ("" for others)
}

// wait waits for a posted event's delivery and returns its failure, if
// any (the sink's, or the one that stopped every delivery before it).
func (p *pending) wait() error {
	<-p.done
	return p.err
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

// post queues e for delivery and returns at once; wait tells when e has
// been delivered, and whether the sink failed on it.
func (em *emitter) post(e Event) *pending {
	p := &pending{e: e, done: make(chan struct{}), posted: true}
	p.cost, p.call = postedCost(e)
	em.mu.Lock()
	defer em.mu.Unlock()
	if em.err != nil {
		p.err = em.err
		close(p.done)
		return p
	}
	if !em.makeRoom(p) {
		close(p.done) // dropped: the queue is full of updates none supersedes
		return p
	}
	em.held += p.cost
	em.queue = append(em.queue, p)
	if !em.busy {
		em.busy = true
		go em.drain()
	}
	return p
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
		em.held -= p.cost
		stopped := em.err
		em.mu.Unlock()
		switch {
		case stopped != nil:
			if p.posted {
				p.err = stopped
			}
		case p.posted:
			p.err = em.try(p.e)
		default:
			em.deliver(p.e)
		}
		close(p.done)
	}
}

// deliver calls the sink once; only the delivering goroutine calls it. A
// failure stops every later delivery.
func (em *emitter) deliver(e Event) {
	if err := em.try(e); err != nil {
		em.mu.Lock()
		if em.err == nil {
			em.err = err
		}
		em.mu.Unlock()
	}
}

// try calls the sink once and returns its failure.
func (em *emitter) try(e Event) error {
	_, err := safely("event sink", func() (struct{}, error) {
		return struct{}{}, em.sink(em.ctx, e)
	})
	return err
}

// fail stops every later delivery with err, unless one already failed.
func (em *emitter) fail(err error) {
	em.mu.Lock()
	defer em.mu.Unlock()
	if em.err == nil {
		em.err = err
	}
}

func (em *emitter) failed() error {
	em.mu.Lock()
	defer em.mu.Unlock()
	return em.err
}
