package cluster

import (
	"context"
	"sync"

	"github.com/nats-io/nats.go/jetstream"
)

// DefaultEventReadAhead is the zero ServiceOptions' EventReadAhead: 16
// streams reading ahead at the default message limit.
const DefaultEventReadAhead = 256 << 20

// readAhead is what a host's event streams, all together, may hold of
// events their clients have not asked for yet. Each stream read ahead by
// eventPrefetch bytes (twice the message limit, 16 MiB by default), and
// serve admits 1,024 streams per token: 16 GiB a token for clients that
// stop reading. A stream now takes its prefetch from here when it opens
// and gives it back when it closes; when too little is left it reads
// no event ahead, pulling each one when its client asks for it.
type readAhead struct {
	mu   sync.Mutex
	free int
}

// take reserves n bytes, or reports that fewer are left.
func (b *readAhead) take(n int) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.free < n {
		return false
	}
	b.free -= n
	return true
}

// give returns n bytes taken.
func (b *readAhead) give(n int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.free += n
}

// openReader opens a reader of session id's events after sequence after
// (0: from the first): one reading ahead when ahead has its prefetch
// left, else one pulling each event when asked.
func openReader(ctx context.Context, js jetstream.JetStream, id string, after uint64, ahead *readAhead) (*eventReader, error) {
	n := eventPrefetch(js)
	if ahead.take(n) {
		it, err := eventIterator(ctx, js, id, after)
		if err != nil {
			ahead.give(n)
			return nil, err
		}
		var once sync.Once
		return &eventReader{it: it, release: func() { once.Do(func() { ahead.give(n) }) }}, nil
	}
	c, err := js.OrderedConsumer(ctx, eventStream, eventConsumerConfig(id, after))
	if err != nil {
		return nil, unavailableOp("reading events", err)
	}
	return &eventReader{pull: c}, nil
}
