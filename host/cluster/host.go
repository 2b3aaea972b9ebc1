package cluster

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/wasmagent/wasmagent/host/eventwire"
	"github.com/wasmagent/wasmagent/host/session"
)

// memberConfig configures one host (a member) of the cluster service.
type memberConfig struct {
	// Store is the session store every host shares.
	Store session.Store
	// Options returns the options of a session this host runs (the Agent:
	// model, tools, hooks; their Store is replaced by Store), and the
	// owner its runs count against.
	Options func(ctx context.Context, id string) (opts session.Options, owner string, err error)
	// Prepare, if set, is called with each session this host opens (its
	// owner and id), before its first command (to subscribe an audit
	// listener).
	Prepare func(owner, id string, s *session.Session)
	// Slots is how many sessions this host runs at once (0: 4).
	Slots int
	// LeaseTTL is how long a silent host keeps its sessions' work (0:
	// 10s). It should equal the store's lease TTL.
	LeaseTTL time.Duration
	// Replicas is how many servers keep each stream (0: 1).
	Replicas int
	// Events bound message_update events as for `run --json`.
	Events eventwire.Options
	// ReadAhead bounds the bytes its event streams hold ahead of their
	// clients, all together (0: DefaultEventReadAhead).
	ReadAhead int
	// Warn receives what this host says about sessions it runs.
	Warn func(string)
}

// DefaultSlots and DefaultLeaseTTL are what a zero ServiceOptions gets.
const (
	DefaultSlots    = 4
	DefaultLeaseTTL = 10 * time.Second
)

// member is one host of the cluster service: it takes commands for any
// session, streams any session's events, and runs sessions with pending
// input while it has a free run slot.
//
// Lifecycle:
//  1. newMember creates the streams, the consumer and the buckets (or
//     finds them).
//  2. Run takes work until its context ends; send and events work
//     whether or not Run runs (a host may only serve requests).
//  3. When Run's context ends, running sessions are aborted (the tool
//     calls cut short get error results, as an abort gives them), and
//     their work goes back to the queue at once.
type member struct {
	js    jetstream.JetStream
	work  jetstream.Consumer
	kv    buckets
	cfg   memberConfig
	times queueTimes
	slots chan struct{}
	ahead *readAhead // what its event streams hold ahead of their clients

	draining atomic.Bool // take no more work
	stopping atomic.Bool // runs are being aborted because the host stops

	mu      sync.Mutex
	running map[string]*runner
}

// drain stops Run taking work; sessions running go on.
func (h *member) drain() { h.draining.Store(true) }

func newMember(ctx context.Context, js jetstream.JetStream, cfg memberConfig) (*member, error) {
	if cfg.Store == nil || cfg.Options == nil {
		return nil, errors.New("cluster: memberConfig needs Store and Options")
	}
	if cfg.Slots <= 0 {
		cfg.Slots = DefaultSlots
	}
	if cfg.ReadAhead <= 0 {
		cfg.ReadAhead = DefaultEventReadAhead
	}
	if cfg.LeaseTTL <= 0 {
		cfg.LeaseTTL = DefaultLeaseTTL
	}
	if cfg.Replicas <= 0 {
		cfg.Replicas = 1
	}
	if cfg.Warn == nil {
		cfg.Warn = func(string) {}
	}
	t := timesFor(cfg.LeaseTTL)
	work, kv, err := setupStreams(ctx, js, cfg.Replicas, t)
	if err != nil {
		return nil, err
	}
	return &member{js: js, work: work, kv: kv, cfg: cfg, times: t, slots: make(chan struct{}, cfg.Slots), ahead: &readAhead{free: cfg.ReadAhead}, running: map[string]*runner{}}, nil
}

// send stores a command for session id and queues the session's work. It
// returns once the command is stored (replicated): from then on some
// host will act on it, even if this one dies.
func (h *member) send(ctx context.Context, id string, c Command) (Sent, error) {
	return send(ctx, h.js, id, c, nil)
}

// events calls fn with session id's events after sequence after, then
// with each new one, until ctx ends or fn fails.
func (h *member) events(ctx context.Context, id string, after uint64, fn func(Event) error) error {
	if err := checkID(id); err != nil {
		return err
	}
	return readEvents(ctx, h.js, id, after, h.ahead, fn)
}

// Running returns how many sessions this host runs now.
func (h *member) Running() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.running)
}

// Run takes sessions with pending input from the work queue, one per free
// slot, until ctx ends; then it waits for the sessions it runs to stop.
func (h *member) Run(ctx context.Context) error {
	var wg sync.WaitGroup
	defer wg.Wait()
	for {
		select {
		case h.slots <- struct{}{}:
		case <-ctx.Done():
			return nil
		}
		if h.draining.Load() {
			<-h.slots
			sleep(ctx, 100*time.Millisecond)
			continue
		}
		m, err := h.next(ctx)
		if m == nil {
			<-h.slots
			if ctx.Err() != nil {
				return nil
			}
			if err != nil {
				h.cfg.Warn(fmt.Sprintf("cluster: taking work: %v", err))
				sleep(ctx, time.Second)
			}
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-h.slots }()
			h.runOne(ctx, m)
		}()
	}
}

// next waits up to a second for one work message.
func (h *member) next(ctx context.Context) (jetstream.Msg, error) {
	fctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	batch, err := h.work.Fetch(1, jetstream.FetchContext(fctx))
	if err != nil {
		if fctx.Err() != nil {
			return nil, nil
		}
		return nil, err
	}
	for m := range batch.Messages() {
		return m, nil
	}
	if err := batch.Error(); err != nil && !errors.Is(err, jetstream.ErrNoMessages) && fctx.Err() == nil {
		return nil, err
	}
	return nil, nil
}

func sleep(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}
