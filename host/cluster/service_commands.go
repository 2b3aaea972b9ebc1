package cluster

import (
	"context"
	"encoding/hex"
	"errors"
	"strings"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/wasmagent/wasmagent/host/serve"
)

// Command implements serve.Backend. The command is stored in the
// session's command stream (so that it survives this host), and the
// host running the session answers it: a prompt returns once that host
// accepted it, an abort once the run stopped. With no host free within
// ReplyWait, a stored command returns nil and runs when one is.
func (s *Service) Command(ctx context.Context, c serve.Caller, id string, cmd serve.Command) error {
	if err := s.state(); err != nil {
		return err
	}
	m, err := readMeta(ctx, s.h.kv.meta, c.Owner, id)
	if err != nil {
		return httpError(err)
	}
	if cmd.Type != "abort" && s.isDraining() {
		return serve.ErrDraining
	}
	wc := Command{Type: cmd.Type, Images: cmd.Images, StreamingBehavior: cmd.StreamingBehavior}
	switch {
	case cmd.Message != nil:
		wc.Message = *cmd.Message
	case cmd.Type != "abort":
		return &serve.InvalidError{Field: "message", Msg: "missing"}
	}
	if err := wc.check(); err != nil {
		return &serve.InvalidError{Msg: strings.TrimPrefix(err.Error(), ErrBadCommand.Error()+": ")}
	}
	running, err := s.running(ctx, m.Owner)
	if err != nil {
		return httpError(err)
	}
	isRunning := running[id]
	// Any command but abort starts a run on an idle session (a steer or
	// follow-up too, docs/cluster.md): each is held to the run quotas.
	if cmd.Type != "abort" && !isRunning {
		if q := c.Quota.Runs; q > 0 && len(running) >= q {
			return &serve.QuotaError{What: "runs at once", Limit: q, RetryAfter: time.Second}
		}
		if q := c.Quota.ToolCallsPerMinute; q > 0 {
			wait, err := toolCallsUsed(ctx, s.h.kv.toolCalls, m.Owner, q, clock())
			if err != nil {
				return httpError(err)
			}
			if wait > 0 {
				return &serve.QuotaError{What: "tool calls per minute", Limit: q, RetryAfter: wait}
			}
		}
	}
	return s.sendAndWait(ctx, id, wc, c.Quota.ToolCallsPerMinute, cmd.Type != "abort" || isRunning)
}

// abortAndWait aborts session id's run, if a host runs it.
func (s *Service) abortAndWait(ctx context.Context, m sessionMeta, id string) error {
	running, err := s.running(ctx, m.Owner)
	if err != nil {
		return httpError(err)
	}
	if !running[id] {
		return nil
	}
	return s.sendAndWait(ctx, id, Command{Type: "abort"}, 0, true)
}

// running returns the owner's sessions a host runs now.
func (s *Service) running(ctx context.Context, owner string) (map[string]bool, error) {
	l, err := s.h.kv.running.ListKeysFiltered(ctx, hex.EncodeToString([]byte(owner))+".*")
	if errors.Is(err, jetstream.ErrNoKeysFound) {
		return map[string]bool{}, nil
	}
	if err != nil {
		return nil, unavailableOp("counting runs", err)
	}
	defer l.Stop()
	out := map[string]bool{}
	for k := range l.Keys() {
		out[idOf(k)] = true
	}
	return out, nil
}

// httpError makes an unavailable JetStream a 503 with its reason.
func httpError(err error) error {
	if err == nil || !errors.Is(err, ErrUnavailable) {
		return err
	}
	return unavailableHTTP{err}
}

// unavailableHTTP is an error serve answers with 503 "unavailable" and
// its text: serve maps serve.ErrClosed so.
type unavailableHTTP struct{ error }

func (e unavailableHTTP) Unwrap() error        { return e.error }
func (e unavailableHTTP) Is(target error) bool { return target == serve.ErrClosed }
