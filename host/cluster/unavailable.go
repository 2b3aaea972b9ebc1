package cluster

import (
	"errors"
	"fmt"
)

// ErrUnavailable is what every error of the service wraps when JetStream
// did not answer (no quorum, no server, a timeout): the request may be
// retried, and nothing of it was half-written. HTTP says 503.
var ErrUnavailable = errors.New("jetstream is unavailable")

// UnavailableError says what could not be done, and why.
type UnavailableError struct {
	What string // "storing the command", …
	Err  error
}

func (e *UnavailableError) Error() string {
	return fmt.Sprintf("%s: %v: %v", e.What, ErrUnavailable, e.Err)
}

// Unwrap returns ErrUnavailable and the cause.
func (e *UnavailableError) Unwrap() []error { return []error{ErrUnavailable, e.Err} }

func unavailable(what string, err error) error {
	return &UnavailableError{What: what, Err: err}
}
