package cluster

import (
	"context"
	"errors"
	"fmt"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// ErrUnavailable is matched (errors.Is) by every error that says
// JetStream could not be reached or did not answer in time: a server to
// retry later (HTTP 503), not a bad request.
var ErrUnavailable = errors.New("JetStream is unavailable")

// UnavailableError is an operation that failed because JetStream could
// not be reached or did not answer. errors.Is(err, ErrUnavailable) holds.
type UnavailableError struct {
	Op  string // what was being done: "append to session 0190…", "list sessions"
	Err error
}

func (e *UnavailableError) Error() string {
	if e.Op == "" {
		return "JetStream is unavailable: " + e.Err.Error()
	}
	return fmt.Sprintf("%s: JetStream is unavailable: %v", e.Op, e.Err)
}

func (e *UnavailableError) Unwrap() error { return e.Err }

// Is makes errors.Is(err, ErrUnavailable) hold.
func (e *UnavailableError) Is(target error) bool { return target == ErrUnavailable }

// FencedError says a Log lost its session to another host: its lease
// expired (its host paused or lost JetStream past the lease's TTL) and
// another host took the session over. The Log appends nothing more;
// what it had appended before stays.
type FencedError struct {
	Session string // the session's id
	Holder  string // who holds it now, "" when nobody (or unknown)
}

func (e *FencedError) Error() string {
	if e.Holder == "" {
		return fmt.Sprintf("session %s: this host's lease on it expired or was removed, so this host stopped writing it (two hosts never write one session)", e.Session)
	}
	return fmt.Sprintf("session %s was taken over by %s after this host's lease on it expired; this host stopped writing it (two hosts never write one session)", e.Session, e.Holder)
}

// isUnavailable reports whether err says JetStream could not be reached
// or did not answer, rather than that it refused the request.
func isUnavailable(err error) bool {
	var api *jetstream.APIError
	if errors.As(err, &api) && api.Code == 503 {
		return true
	}
	for _, target := range []error{
		context.DeadlineExceeded, nats.ErrTimeout, nats.ErrNoServers,
		nats.ErrConnectionClosed, nats.ErrConnectionDraining, nats.ErrNoResponders,
		nats.ErrDisconnected, jetstream.ErrNoStreamResponse,
		jetstream.ErrJetStreamNotEnabled, jetstream.ErrJetStreamNotEnabledForAccount,
		errBehind,
	} {
		if errors.Is(err, target) {
			return true
		}
	}
	return false
}

// unavailable wraps err in an *UnavailableError when it is of that kind.
func unavailable(err error) error { return unavailableOp("", err) }

func unavailableOp(op string, err error) error {
	if err == nil || errors.Is(err, ErrUnavailable) || !isUnavailable(err) {
		if op != "" && err != nil && !errors.Is(err, ErrUnavailable) {
			return fmt.Errorf("%s: %w", op, err)
		}
		return err
	}
	return &UnavailableError{Op: op, Err: err}
}
