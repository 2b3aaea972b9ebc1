package cluster

import (
	"context"

	"github.com/wasmagent/wasmagent/host/session"
)

// detachedStore gives the sessions a host runs logs whose appends do not
// end with the caller's context: a session appends the last messages of
// an aborted run (the results of the tool calls cut short) with the
// run's context, cancelled by the abort, and they must be stored all the
// same. The store's own timeouts still bound each append.
type detachedStore struct{ session.Store }

func (d detachedStore) Open(ctx context.Context, key string) (session.Log, *session.Transcript, error) {
	l, t, err := d.Store.Open(ctx, key)
	if err != nil {
		return nil, nil, err
	}
	return detachedLog{l}, t, nil
}

func (d detachedStore) Create(ctx context.Context, h session.Header, entries []session.Entry) (session.Log, error) {
	l, err := d.Store.Create(ctx, h, entries)
	if err != nil {
		return nil, err
	}
	return detachedLog{l}, nil
}

type detachedLog struct{ session.Log }

func (l detachedLog) Append(ctx context.Context, entries ...session.Entry) error {
	return l.Log.Append(context.WithoutCancel(ctx), entries...)
}
