package cluster

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/wasmagent/wasmagent/host/session"
)

// Log appends to one session; it implements session.Log.
//
// Every message it writes is conditional on the sequence of the last
// message of the session's subject that it knows of
// (Nats-Expected-Last-Subject-Sequence): when another host has written
// since, JetStream refuses it, and the Log returns a *FencedError and
// appends nothing more. An append either is stored whole or reads back as
// absent (see assemble); when JetStream does not answer for Timeout, so
// that whether it was stored is unknown, the Log refuses later appends
// with an error saying so (reopen the session to read what was stored).
type Log struct {
	st    *Store
	id    string // the session's id
	key   string
	lease *lease

	mu     sync.Mutex
	seq    uint64  // the subject's last message, as far as this Log knows
	info   summary // the session once the appends so far are in
	n      int     // messages written, for their ids
	closed bool
	broken error // set when the Log stops: fenced, or an unknown outcome
}

// Append implements session.Log.
func (l *Log) Append(ctx context.Context, entries ...session.Entry) error {
	if len(entries) == 0 {
		return nil
	}
	data, err := session.EncodeLines(nil, entries)
	if err != nil {
		return err
	}
	return l.append(ctx, data, entries)
}

// append writes data, the lines of entries. It does not stop when ctx is
// cancelled (an aborted run's last message is appended after the abort):
// Timeout bounds it, as a write call bounds the file store's.
func (l *Log) append(ctx context.Context, data []byte, entries []session.Entry) error {
	ctx = context.WithoutCancel(ctx)
	l.mu.Lock()
	defer l.mu.Unlock()
	switch {
	case l.closed:
		return fmt.Errorf("session %s: log closed", l.id)
	case l.broken != nil:
		return l.broken
	case !l.lease.held():
		return l.fence(ctx)
	}
	info := l.info
	info.add(entries, time.Now())
	parts := split(data, l.partSize())
	if len(parts) > maxParts {
		return fmt.Errorf("session %s: an append of %d bytes is too large to store", l.id, len(data))
	}
	for i, p := range parts {
		m := nats.NewMsg(l.st.subj + l.key)
		m.Data = p
		m.Header.Set(hdrKind, kindLog)
		if len(parts) > 1 {
			m.Header.Set(hdrPart, fmt.Sprintf("%d/%d", i+1, len(parts)))
		}
		// Until the last part is in, the session is what it was.
		if i == len(parts)-1 {
			m.Header.Set(hdrInfo, info.header())
		} else {
			m.Header.Set(hdrInfo, l.info.header())
		}
		if err := l.publish(ctx, m); err == errWrongSeq {
			return l.fence(ctx)
		} else if err != nil {
			return err
		}
	}
	l.info = info
	return nil
}

// errWrongSeq is publish's answer when another writer wrote after l.seq.
var errWrongSeq = errors.New("another writer appended")

// partSize is the largest body of one message: the connection's bound
// less room for the headers.
func (l *Log) partSize() int {
	return max(int(l.st.c.nc.MaxPayload())-16<<10, 1<<10)
}

// publishFence writes a fence message conditional on l.seq: ok false
// when another writer got there first.
func (l *Log) publishFence(ctx context.Context) (seq uint64, ok bool, err error) {
	m := nats.NewMsg(l.st.subj + l.key)
	m.Header.Set(hdrKind, kindFence)
	m.Header.Set(hdrInfo, l.info.header())
	l.mu.Lock()
	defer l.mu.Unlock()
	err = l.publish(ctx, m)
	if err == errWrongSeq {
		return 0, false, nil
	}
	return l.seq, err == nil, err
}

// publish writes m conditional on l.seq and advances l.seq. A wrong last
// sequence is errWrongSeq, unless the message found after l.seq is m itself
// (an earlier attempt was stored but its answer lost). When JetStream
// does not answer, the same message (same id, same condition) is sent
// again until Timeout: it is stored at most once.
func (l *Log) publish(ctx context.Context, m *nats.Msg) error {
	l.n++
	id := l.lease.token + "-" + strconv.Itoa(l.n)
	m.Header.Set(hdrMsgID, id)
	m.Header.Set(hdrHolder, l.st.cfg.Holder)
	deadline := time.Now().Add(l.st.cfg.Timeout)
	var err error
	sent := false // whether an attempt may have reached a server
	for attempt := 0; ; attempt++ {
		// A request sent while the cluster elects a leader may go
		// unanswered: each attempt gets a share of the time.
		actx, cancel := context.WithTimeout(ctx, max(l.st.cfg.Timeout/4, 100*time.Millisecond))
		actx, cancel2 := context.WithDeadline(actx, deadline)
		var ack *jetstream.PubAck
		ack, err = l.st.c.js.PublishMsg(actx, m, jetstream.WithExpectLastSequencePerSubject(l.seq), jetstream.WithRetryAttempts(0))
		cancel2()
		cancel()
		if err == nil {
			l.seq = ack.Sequence
			return nil
		}
		if isWrongLastSeq(err) {
			seq, found, mine, lerr := l.landed(ctx, id)
			switch {
			case lerr != nil:
				err = lerr
			case mine:
				l.seq = seq
				return nil
			case found:
				return errWrongSeq
			default:
				// Refused, yet nothing after l.seq can be read: a
				// clustered stream refuses a conditional message while
				// another for the subject (an earlier attempt of this
				// one, whose answer was lost) is still being stored, and
				// that one is not readable until it is. Ask again (the
				// same id: stored at most once) until Timeout; a subject
				// that stays empty past l.seq was removed.
				sent = true
				if ctx.Err() != nil || time.Now().After(deadline) {
					return errWrongSeq
				}
				select {
				case <-ctx.Done():
				case <-time.After(min(time.Duration(attempt+1)*50*time.Millisecond, time.Second)):
				}
				continue
			}
		}
		if !isUnavailable(err) {
			if !sent {
				// Refused: nothing was stored.
				return fmt.Errorf("session %s: append refused, nothing was kept: %w", l.id, err)
			}
			break
		}
		// No responders: no stream took it. Any other silence may hide a
		// message stored whose answer was lost.
		sent = sent || !errors.Is(err, nats.ErrNoResponders)
		if ctx.Err() != nil || time.Now().After(deadline) {
			if !sent {
				return &UnavailableError{Op: fmt.Sprintf("session %s: append (nothing was kept)", l.id), Err: err}
			}
			break
		}
		select {
		case <-ctx.Done():
		case <-time.After(min(time.Duration(attempt+1)*50*time.Millisecond, time.Second)):
		}
	}
	l.broken = &UnavailableError{Op: fmt.Sprintf("session %s: append (it may or may not have been stored; this host appends nothing more to the session until it is opened again)", l.id), Err: err}
	return l.broken
}

// landed looks at the first message of the subject after l.seq: whether
// there is one, its sequence, and whether it is the message with id.
func (l *Log) landed(ctx context.Context, id string) (seq uint64, found, mine bool, err error) {
	ctx, cancel := context.WithTimeout(ctx, l.st.cfg.Timeout)
	defer cancel()
	m, err := l.st.stream.GetMsg(ctx, l.seq+1, jetstream.WithGetMsgSubject(l.st.subj+l.key))
	if errors.Is(err, jetstream.ErrMsgNotFound) {
		// Nothing after l.seq: not stored yet, or removed.
		return 0, false, false, nil
	}
	if err != nil {
		return 0, false, false, err
	}
	return m.Sequence, true, m.Header.Get(hdrMsgID) == id, nil
}

// fence stops the Log: another host took the session.
func (l *Log) fence(ctx context.Context) error {
	err := &FencedError{Session: l.id, Holder: l.st.holderOf(ctx, l.key)}
	l.broken = err
	l.lease.stopRenewing()
	return err
}

// Close implements session.Log: it releases the lease (when still held).
func (l *Log) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return nil
	}
	l.closed = true
	l.lease.release()
	return nil
}

func isWrongLastSeq(err error) bool {
	var api *jetstream.APIError
	return errors.As(err, &api) && (api.ErrorCode == jetstream.JSErrCodeStreamWrongLastSequence ||
		api.ErrorCode == jetstream.JSErrCodeStreamWrongLastSequenceConstant)
}
