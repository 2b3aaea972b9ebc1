package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"sync"

	"github.com/nats-io/nats.go/jetstream"
)

// ErrFenced says another host took the session over: this host's
// events (and appends) for it are refused, and its run stops.
var ErrFenced = errors.New("another host has taken the session over")

// eventLog publishes one session's events, as `run --json` prints them,
// on its event subject. Each publish expects the subject's last sequence
// to be the one this host last wrote: a host that lost the session (it
// was paused past its lease, and another host published since) is
// refused, so a client never sees two hosts' events interleaved.
type eventLog struct {
	js      jetstream.JetStream
	subject string

	mu   sync.Mutex
	last uint64 // the subject's last sequence, as far as this host knows
	err  error  // the first failure; every later publish returns it
}

// openEvents starts publishing session id's events after those already
// stored.
func openEvents(ctx context.Context, js jetstream.JetStream, id string) (*eventLog, error) {
	s, err := js.Stream(ctx, eventStream)
	if err != nil {
		return nil, unavailableOp("opening the event stream", err)
	}
	var last uint64
	m, err := s.GetLastMsgForSubject(ctx, eventSubject(id))
	switch {
	case err == nil:
		last = m.Sequence
	case !errors.Is(err, jetstream.ErrMsgNotFound):
		return nil, unavailableOp("opening the event stream", err)
	}
	return &eventLog{js: js, subject: eventSubject(id), last: last}, nil
}

// publish stores one event and returns its sequence, the id SSE clients
// resume from.
func (l *eventLog) publish(ctx context.Context, data []byte) (uint64, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.err != nil {
		return 0, l.err
	}
	data = fitEvent(data, l.js.Conn().MaxPayload()-eventHeadroom)
	ack, err := l.js.Publish(ctx, l.subject, data, jetstream.WithExpectLastSequencePerSubject(l.last))
	if err != nil {
		var api *jetstream.APIError
		if errors.As(err, &api) && api.ErrorCode == jetstream.JSErrCodeStreamWrongLastSequence {
			l.err = fmt.Errorf("event of %s: %w", l.subject, ErrFenced)
		} else {
			l.err = unavailableOp("publishing an event", err)
		}
		return 0, l.err
	}
	l.last = ack.Sequence
	return ack.Sequence, nil
}

// eventHeadroom is what a published event leaves of the server's message
// limit for its headers and subject.
const eventHeadroom = 4 << 10

// fitEvent returns data, or, when it is over max bytes (a tool result
// larger than the server's message limit), a stand-in with its type, its
// call's id and the size left out, so that the run goes on and the event
// stream says what is missing. The session's log keeps the message whole
// (its appends are split), so GET …/messages has it.
func fitEvent(data []byte, max int64) []byte {
	if int64(len(data)) <= max {
		return data
	}
	var ev struct {
		Type       string `json:"type"`
		ToolCallID string `json:"toolCallId,omitempty"`
	}
	json.Unmarshal(data, &ev) // what cannot be read stays empty
	out, _ := json.Marshal(struct {
		Type         string `json:"type"`
		ToolCallID   string `json:"toolCallId,omitempty"`
		OmittedBytes int    `json:"omittedBytes"`
	}{ev.Type, ev.ToolCallID, len(data)})
	return out
}

// Event is one stored event of a session.
type Event struct {
	Seq  uint64 // its sequence in the event stream: the SSE id
	Data []byte // the JSON object, as `run --json` prints it
}

// readEvents calls fn with each event of session id stored after
// sequence after (0: from the first), then with each one stored later,
// until ctx ends (nil), the session is deleted (serve.ErrGone), or fn or
// the stream fails.
func readEvents(ctx context.Context, js jetstream.JetStream, id string, after uint64, ahead *readAhead, fn func(Event) error) error {
	r, err := openReader(ctx, js, id, after, ahead)
	if err != nil {
		return err
	}
	defer r.Close()
	for {
		e, err := r.Next(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
		seq, _ := strconv.ParseUint(e.ID, 10, 64)
		if err := fn(Event{Seq: seq, Data: e.Data}); err != nil {
			return err
		}
	}
}
