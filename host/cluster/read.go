package cluster

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// stored is a message read back from the sessions stream.
type stored struct {
	subject string
	header  nats.Header
	data    []byte
	seq     uint64
	time    time.Time
}

// readBatch bounds one fetch.
const readBatch = 1024

// read returns, in stream order, the messages on filter: all of them, or
// with lastOnly the last of each subject, headers only. It reads through
// an ephemeral consumer, deleted after.
//
// The consumer may be placed on a replica that has not yet stored what
// the leader acknowledged (a consumer of one replica is put on any peer
// of the stream): so the leader is asked first for the last sequence on
// filter, and a read that ends before it is read again, as from an
// unavailable cluster. A session created or appended to is then found by
// the next read on any host.
func (s *Store) read(ctx context.Context, filter string, lastOnly bool) ([]stored, error) {
	var out []stored
	err := retry(ctx, s.cfg.Timeout, func(ctx context.Context) (err error) {
		last, err := s.leaderLast(ctx, filter)
		if err != nil {
			return err
		}
		if out, err = s.readOnce(ctx, filter, lastOnly); err != nil {
			return err
		}
		if n := len(out); last > 0 && (n == 0 || out[n-1].seq < last) {
			return errBehind
		}
		return nil
	})
	return out, err
}

// errBehind is a read from a replica that lags the stream's leader.
var errBehind = errors.New("the replica read from is behind the stream's leader")

// leaderLast is the sequence of the last message on filter as the
// stream's leader has it (the stream allows no direct reads), or 0.
func (s *Store) leaderLast(ctx context.Context, filter string) (uint64, error) {
	m, err := s.stream.GetLastMsgForSubject(ctx, filter)
	if errors.Is(err, jetstream.ErrMsgNotFound) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	return m.Sequence, nil
}

// retry calls an idempotent request until it succeeds, fails otherwise
// than by JetStream being unavailable, or timeout has passed: a cluster
// electing a leader answers no one for a moment. Each attempt gets a
// share of timeout.
func retry(ctx context.Context, timeout time.Duration, f func(context.Context) error) error {
	deadline := time.Now().Add(timeout)
	for attempt := 0; ; attempt++ {
		actx, cancel := context.WithTimeout(ctx, max(timeout/2, 100*time.Millisecond))
		err := f(actx)
		cancel()
		if err == nil || !isUnavailable(err) || ctx.Err() != nil || time.Now().After(deadline) {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(min(time.Duration(attempt+1)*50*time.Millisecond, time.Second)):
		}
	}
}

func (s *Store) readOnce(ctx context.Context, filter string, lastOnly bool) ([]stored, error) {
	cfg := jetstream.ConsumerConfig{
		FilterSubject:     filter,
		DeliverPolicy:     jetstream.DeliverAllPolicy,
		AckPolicy:         jetstream.AckNonePolicy,
		MemoryStorage:     true,
		Replicas:          1,
		InactiveThreshold: time.Minute,
	}
	if lastOnly {
		cfg.DeliverPolicy, cfg.HeadersOnly = jetstream.DeliverLastPerSubjectPolicy, true
	}
	cons, err := s.stream.CreateConsumer(ctx, cfg)
	if err != nil {
		return nil, err
	}
	name := cons.CachedInfo().Name
	defer func() {
		dctx, dcancel := context.WithTimeout(context.Background(), s.cfg.Timeout)
		s.stream.DeleteConsumer(dctx, name)
		dcancel()
	}()
	pending := cons.CachedInfo().NumPending
	out := make([]stored, 0, pending)
	for pending > 0 {
		batch, err := cons.Fetch(int(min(pending, readBatch)), jetstream.FetchContext(ctx))
		if err != nil {
			return nil, err
		}
		got := 0
		for m := range batch.Messages() {
			meta, err := m.Metadata()
			if err != nil {
				return nil, err
			}
			out = append(out, stored{subject: m.Subject(), header: m.Headers(), data: m.Data(),
				seq: meta.Sequence.Stream, time: meta.Timestamp})
			pending = meta.NumPending
			got++
		}
		if err := batch.Error(); err != nil {
			return nil, err
		}
		if got == 0 {
			return nil, fmt.Errorf("reading %s: the stream sent nothing while %d messages were pending: %w", filter, pending, context.DeadlineExceeded)
		}
	}
	return out, nil
}
