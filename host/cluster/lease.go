package cluster

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/wasmagent/wasmagent/host/session"
)

// A lease says which host runs a session: a key of the lease bucket,
// created when absent (Create, revision 0), renewed by its holder with
// Update at the revision it last wrote, and gone when the holder closes
// the session or stops renewing for the bucket's TTL. A lease is advice:
// what keeps two hosts from writing one session is the conditional
// append (see Log), which holds however clocks drift or hosts pause.

// leaseValue is a lease's value.
type leaseValue struct {
	Holder string    `json:"holder"`
	Token  string    `json:"token"` // unique to one taking of the lease
	Since  time.Time `json:"since"`
}

// lease is a lease this host holds, renewed until released or lost.
type lease struct {
	st    *Store
	key   string
	token string
	since time.Time

	mu   sync.Mutex
	rev  uint64
	lost bool

	once sync.Once
	stop chan struct{}
	done chan struct{}
}

// acquire takes the lease of the session named key, or returns a
// *session.LockedError naming its holder.
func (s *Store) acquire(ctx context.Context, key, id string) (*lease, error) {
	token, since := randomToken(), time.Now().UTC()
	val, _ := json.Marshal(leaseValue{Holder: s.cfg.Holder, Token: token, Since: since})
	var rev uint64
	err := retry(ctx, s.cfg.Timeout, func(ctx context.Context) (err error) {
		rev, err = s.leases.Create(ctx, key, val)
		if errors.Is(err, jetstream.ErrKeyExists) {
			// Ours, when an earlier attempt was stored but its answer lost.
			if e, gerr := s.leases.Get(ctx, key); gerr == nil && bytes.Equal(e.Value(), val) {
				rev, err = e.Revision(), nil
			}
		}
		return err
	})
	if errors.Is(err, jetstream.ErrKeyExists) {
		return nil, &session.LockedError{Session: id, Holder: s.holderOf(ctx, key)}
	}
	if err != nil {
		return nil, unavailableOp("take the lease of session "+id, err)
	}
	l := &lease{st: s, key: key, token: token, since: since, rev: rev, stop: make(chan struct{}), done: make(chan struct{})}
	go l.renew()
	return l, nil
}

// Holder names the host that holds session id's lease: held is false
// when nobody does (the session is free to take, or does not exist).
func (s *Store) Holder(ctx context.Context, id string) (holder string, held bool, err error) {
	if _, err := keyOf(id); err != nil {
		return "", false, err
	}
	ctx, cancel := context.WithTimeout(ctx, s.cfg.Timeout)
	defer cancel()
	e, err := s.leases.Get(ctx, id)
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return "", false, nil
	}
	if err != nil {
		return "", false, unavailableOp("the lease of session "+id, err)
	}
	var v leaseValue
	json.Unmarshal(e.Value(), &v)
	return v.Holder, true, nil
}

// holderOf names the holder of key's lease, "" when none or unknown.
func (s *Store) holderOf(ctx context.Context, key string) string {
	ctx, cancel := context.WithTimeout(ctx, s.cfg.Timeout)
	defer cancel()
	e, err := s.leases.Get(ctx, key)
	if err != nil {
		return ""
	}
	var v leaseValue
	if json.Unmarshal(e.Value(), &v) != nil {
		return ""
	}
	return v.Holder
}

// renew updates the lease every third of its TTL until released. It
// marks the lease lost when another revision took its place (another host
// took it after it expired) or when no renewal succeeded for a whole TTL
// (then the bucket has expired it).
func (l *lease) renew() {
	defer close(l.done)
	ttl := l.st.cfg.LeaseTTL
	tick := time.NewTicker(ttl / 3)
	defer tick.Stop()
	renewed := time.Now()
	for {
		select {
		case <-l.stop:
			return
		case <-tick.C:
		}
		l.mu.Lock()
		rev := l.rev
		l.mu.Unlock()
		val, _ := json.Marshal(leaseValue{Holder: l.st.cfg.Holder, Token: l.token, Since: l.since})
		ctx, cancel := context.WithTimeout(context.Background(), ttl/3)
		nrev, err := l.st.leases.Update(ctx, l.key, val, rev)
		cancel()
		l.mu.Lock()
		switch {
		case err == nil:
			l.rev, renewed = nrev, time.Now()
		case errors.Is(err, jetstream.ErrKeyRevisionMismatch), errors.Is(err, jetstream.ErrKeyNotFound),
			time.Since(renewed) >= ttl:
			l.lost = true
		}
		lost := l.lost
		l.mu.Unlock()
		if lost {
			return
		}
	}
}

// held reports whether the lease is still held, as far as this host knows.
func (l *lease) held() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return !l.lost
}

// stopRenewing stops the renewals; the lease expires by its TTL unless
// released. Tests use it to play a host that paused.
func (l *lease) stopRenewing() {
	l.once.Do(func() { close(l.stop) })
	<-l.done
}

// release stops renewing and deletes the lease if it is still this
// host's (conditional on the revision this host wrote last): a lease
// another host took is left to it.
func (l *lease) release() {
	l.stopRenewing()
	l.mu.Lock()
	rev, lost := l.rev, l.lost
	l.lost = true
	l.mu.Unlock()
	if lost {
		return
	}
	// Retried while the cluster is unavailable, as every write is: a
	// release lost under load left the lease held until it expired, and
	// the next open of the session, by this very host, failed as locked.
	// A purge applied whose answer was lost finds the key gone or at
	// another revision: then the lease is released when it is no longer
	// this one's, and purged again at its revision while it still is.
	retry(context.Background(), l.st.cfg.Timeout, func(ctx context.Context) error {
		err := l.st.leases.Purge(ctx, l.key, jetstream.LastRevision(rev))
		if !isWrongLastSeq(err) {
			return err
		}
		e, gerr := l.st.leases.Get(ctx, l.key)
		if errors.Is(gerr, jetstream.ErrKeyNotFound) {
			return nil
		} else if gerr != nil {
			return gerr
		}
		var v leaseValue
		if json.Unmarshal(e.Value(), &v) != nil || v.Token != l.token {
			return nil // another host's now
		}
		rev = e.Revision()
		return l.st.leases.Purge(ctx, l.key, jetstream.LastRevision(rev))
	})
}
