package cluster

import (
	"context"
	"errors"
	"strconv"

	"github.com/nats-io/nats.go/jetstream"
)

// A session's cursor is the sequence of its last settled command: every
// command up to it has been delivered into the log, refused, or cancelled
// by an abort. A host taking the session reads the commands after it;
// those whose user message is already in the log (matched by text and
// timestamp: a command's message carries the time it was stored) are
// settled too, so a host dying between the log append and the cursor
// update delivers nothing twice.

func readCursor(ctx context.Context, kv jetstream.KeyValue, id string) (uint64, error) {
	e, err := kv.Get(ctx, id)
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return 0, nil
	}
	if err != nil {
		return 0, unavailableOp("reading the command cursor", err)
	}
	n, err := strconv.ParseUint(string(e.Value()), 10, 64)
	if err != nil {
		return 0, nil // not one this service wrote: start from the first command
	}
	return n, nil
}

func writeCursor(ctx context.Context, kv jetstream.KeyValue, id string, seq uint64) error {
	if _, err := kv.Put(ctx, id, []byte(strconv.FormatUint(seq, 10))); err != nil {
		return unavailableOp("writing the command cursor", err)
	}
	return nil
}
