package cluster

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/wasmagent/wasmagent/host/serve"
)

// goneHeader marks the last message of a deleted session's event
// subject: streams reading it end with serve.ErrGone.
const goneHeader = "Wa-Gone"

// Events implements serve.Backend: event ids are sequences of the event
// stream, in decimal.
func (s *Service) Events(ctx context.Context, c serve.Caller, id, after string) (serve.Stream, error) {
	if err := s.state(); err != nil {
		return nil, err
	}
	if _, err := readMeta(ctx, s.h.kv.meta, c.Owner, id); err != nil {
		return nil, httpError(err)
	}
	var n uint64
	if after != "" {
		var err error
		n, err = strconv.ParseUint(after, 10, 64)
		if err != nil || strconv.FormatUint(n, 10) != after {
			return nil, &serve.InvalidError{Field: "Last-Event-ID", Msg: fmt.Sprintf("%.40q is not an event id of this session (a decimal number)", after)}
		}
		last, err := lastEvent(ctx, s.h.js, id)
		if err != nil {
			return nil, httpError(err)
		}
		if n > last {
			return nil, &serve.InvalidError{Field: "Last-Event-ID", Msg: fmt.Sprintf("event %d is past the session's last event (%d)", n, last)}
		}
	}
	r, err := openReader(ctx, s.h.js, id, n, s.h.ahead)
	if err != nil {
		return nil, httpError(err)
	}
	return r, nil
}

// eventResetAttempts bounds how many times a stream's ordered consumer is
// made again after it failed (a server failing over): 8 attempts, 1 s
// apart and doubling up to 10 s, about a minute. The NATS client's
// default is without end, and a pull waits for it whatever its context
// says: on the old main a stream whose events were deleted from JetStream
// (or whose permission was taken away) held its handler's goroutine and
// connection for good, its client long gone (a variable for tests).
var eventResetAttempts = 8

// eventConsumerConfig reads session id's events after sequence after.
func eventConsumerConfig(id string, after uint64) jetstream.OrderedConsumerConfig {
	cfg := jetstream.OrderedConsumerConfig{FilterSubjects: []string{eventSubject(id)}, MaxResetAttempts: eventResetAttempts}
	if after > 0 {
		cfg.DeliverPolicy = jetstream.DeliverByStartSequencePolicy
		cfg.OptStartSeq = after + 1
	}
	return cfg
}

func eventIterator(ctx context.Context, js jetstream.JetStream, id string, after uint64) (jetstream.MessagesContext, error) {
	c, err := js.OrderedConsumer(ctx, eventStream, eventConsumerConfig(id, after))
	if err != nil {
		return nil, unavailableOp("reading events", err)
	}
	it, err := c.Messages(jetstream.PullMaxBytes(eventPrefetch(js)))
	if err != nil {
		return nil, unavailableOp("reading events", err)
	}
	return it, nil
}

// eventPrefetch bounds the bytes of events one reader's consumer holds
// ahead of its client: the default, 500 messages, let a client that
// stops reading keep up to 500 events of up to the server's message
// limit each in this host's memory (500 MiB at 1 MiB), per open
// stream. It stays at least twice that limit, so that the largest event
// always fits one pull.
func eventPrefetch(js jetstream.JetStream) int {
	return max(minEventPrefetch, 2*int(js.Conn().MaxPayload()))
}

const minEventPrefetch = 4 << 20

// eventReader is serve.Stream over an ordered consumer: read ahead
// through it, or pulled event by event through pull when it is nil.
type eventReader struct {
	it      jetstream.MessagesContext
	pull    jetstream.Consumer
	pending chan pulled // the pull under way, if a Next left it (pulling only)
	release func()      // gives back it's read-ahead (nil: none taken)
	gone    bool
}

// pulled is the outcome of one pull.
type pulled struct {
	m   jetstream.Msg
	err error
}

// Next implements serve.Stream.
func (st *eventReader) Next(ctx context.Context) (serve.Event, error) {
	if st.gone {
		return serve.Event{}, serve.ErrGone
	}
	m, err := st.next(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return serve.Event{}, ctx.Err()
		}
		if errors.Is(err, jetstream.ErrMsgIteratorClosed) {
			return serve.Event{}, serve.ErrClosed
		}
		return serve.Event{}, httpError(unavailableOp("reading events", err))
	}
	if m.Headers().Get(goneHeader) != "" {
		st.gone = true
		return serve.Event{}, serve.ErrGone
	}
	md, err := m.Metadata()
	if err != nil {
		return serve.Event{}, httpError(unavailableOp("reading events", err))
	}
	return serve.Event{ID: strconv.FormatUint(md.Sequence.Stream, 10), Data: m.Data(), Time: md.Timestamp}, nil
}

// next is the next message, read ahead or pulled when asked for.
func (st *eventReader) next(ctx context.Context) (jetstream.Msg, error) {
	if st.it != nil {
		return st.it.Next(jetstream.NextContext(ctx))
	}
	var failing time.Time // when the pulls began to fail
	for {
		m, err := st.pullOne(ctx)
		switch {
		case err == nil, ctx.Err() != nil, errors.Is(err, nats.ErrConnectionClosed):
			return m, err
		case errors.Is(err, nats.ErrTimeout):
			failing = time.Time{}
			continue // the pull expired with no new event
		}
		// A server failing over: the next pull starts a new consumer
		// after the last event returned, as the ordered consumer's
		// iterator does by itself. A failure that lasts (the stream
		// deleted, a permission taken away) ends the stream after
		// pullRetryFor, with the error, as a failed open does; its client
		// may resume it with Last-Event-ID.
		if failing.IsZero() {
			failing = time.Now()
		} else if time.Since(failing) > pullRetryFor {
			return nil, err
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(pullRetry):
		}
	}
}

// pullOne pulls the next message, or returns when ctx is done: a pull
// whose consumer is being made again does not heed its context
// (eventResetAttempts bounds it), so it runs on a goroutine of its own,
// and a later call takes its outcome.
func (st *eventReader) pullOne(ctx context.Context) (jetstream.Msg, error) {
	if st.pending == nil {
		ch := make(chan pulled, 1)
		st.pending = ch
		go func() {
			m, err := st.pull.Next(jetstream.FetchContext(ctx))
			ch <- pulled{m, err}
		}()
	}
	select {
	case p := <-st.pending:
		st.pending = nil
		return p.m, p.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// pullRetry is how long a stream that pulls its events waits after a
// failed pull before the next; pullRetryFor how long it goes on retrying
// pulls that keep failing (a variable for tests).
const pullRetry = 250 * time.Millisecond

var pullRetryFor = time.Minute

// Close implements serve.Stream.
func (st *eventReader) Close() error {
	if st.it != nil {
		st.it.Stop()
	}
	if st.release != nil {
		st.release()
	}
	return nil
}

// lastEvent returns the sequence of session id's last event (0: none).
func lastEvent(ctx context.Context, js jetstream.JetStream, id string) (uint64, error) {
	s, err := js.Stream(ctx, eventStream)
	if err != nil {
		return 0, unavailableOp("reading events", err)
	}
	m, err := s.GetLastMsgForSubject(ctx, eventSubject(id))
	if errors.Is(err, jetstream.ErrMsgNotFound) {
		return 0, nil
	}
	if err != nil {
		return 0, unavailableOp("reading events", err)
	}
	return m.Sequence, nil
}

// endEvents ends session id's event streams: a marker goes last, and
// every event before it is purged.
func endEvents(ctx context.Context, js jetstream.JetStream, id string) error {
	m := nats.NewMsg(eventSubject(id))
	m.Header.Set(goneHeader, "1")
	if _, err := js.PublishMsg(ctx, m); err != nil {
		return unavailableOp("ending the session's events", err)
	}
	s, err := js.Stream(ctx, eventStream)
	if err != nil {
		return unavailableOp("ending the session's events", err)
	}
	if err := s.Purge(ctx, jetstream.WithPurgeSubject(eventSubject(id)), jetstream.WithPurgeKeep(1)); err != nil {
		return unavailableOp("ending the session's events", err)
	}
	return nil
}

func purgeSubject(ctx context.Context, js jetstream.JetStream, stream, subject string) error {
	s, err := js.Stream(ctx, stream)
	if err != nil {
		return err
	}
	return s.Purge(ctx, jetstream.WithPurgeSubject(subject))
}
