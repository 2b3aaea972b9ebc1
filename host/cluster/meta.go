package cluster

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/wasmagent/wasmagent/host/serve"
)

// The meta bucket holds what a session was created with, which pi's
// session format has no place for (its owner, system prompt and model),
// under the session's id, and an index of each owner's sessions under
// own.<hex of the owner>.<id> (hex: an owner's name may hold dots).
const metaBucket = "wa_sessions"

// sessionMeta is a session's entry in the meta bucket.
type sessionMeta struct {
	Owner        string           `json:"owner"`
	SystemPrompt *string          `json:"systemPrompt,omitempty"`
	Model        *serve.ModelSpec `json:"model,omitempty"`
	Created      time.Time        `json:"created"`
}

func ownerKey(owner, id string) string { return "own." + hex.EncodeToString([]byte(owner)) + "." + id }

func ownerFilter(owner string) string { return "own." + hex.EncodeToString([]byte(owner)) + ".*" }

// readMeta returns session id's metadata if owner owns it, else
// serve.ErrNotFound (another owner's session does not exist for it).
func readMeta(ctx context.Context, kv jetstream.KeyValue, owner, id string) (sessionMeta, error) {
	if checkID(id) != nil {
		return sessionMeta{}, serve.ErrNotFound
	}
	e, err := kv.Get(ctx, id)
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return sessionMeta{}, serve.ErrNotFound
	}
	if err != nil {
		return sessionMeta{}, unavailableOp("reading the session's metadata", err)
	}
	m, err := decodeMeta(e.Value())
	if err != nil {
		return sessionMeta{}, err
	}
	if owner != "" && m.Owner != owner {
		return sessionMeta{}, serve.ErrNotFound
	}
	return m, nil
}

func decodeMeta(data []byte) (sessionMeta, error) {
	var m sessionMeta
	if err := json.Unmarshal(data, &m); err != nil {
		return sessionMeta{}, fmt.Errorf("session metadata: %w", err)
	}
	return m, nil
}

// writeMeta creates session id's metadata and its owner index entry.
func writeMeta(ctx context.Context, kv jetstream.KeyValue, id string, m sessionMeta) error {
	data, err := json.Marshal(m)
	if err != nil {
		return err
	}
	if _, err := kv.Create(ctx, id, data); err != nil {
		return unavailableOp("storing the session's metadata", err)
	}
	if _, err := kv.Put(ctx, ownerKey(m.Owner, id), nil); err != nil {
		kv.Purge(ctx, id)
		return unavailableOp("storing the session's metadata", err)
	}
	return nil
}

// ownedIDs lists owner's sessions.
func ownedIDs(ctx context.Context, kv jetstream.KeyValue, owner string) ([]string, error) {
	l, err := kv.ListKeysFiltered(ctx, ownerFilter(owner))
	if err != nil {
		return nil, unavailableOp("listing sessions", err)
	}
	defer l.Stop()
	var ids []string
	for k := range l.Keys() {
		ids = append(ids, idOf(k))
	}
	return ids, nil
}

func removeMeta(ctx context.Context, kv jetstream.KeyValue, owner, id string) error {
	if err := kv.Purge(ctx, ownerKey(owner, id)); err != nil {
		return unavailableOp("removing the session's metadata", err)
	}
	if err := kv.Purge(ctx, id); err != nil {
		return unavailableOp("removing the session's metadata", err)
	}
	return nil
}
