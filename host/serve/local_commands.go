package serve

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/wasmagent/wasmagent/host"
	"github.com/wasmagent/wasmagent/host/session"
	"github.com/wasmagent/wasmagent/internal/words"
)

// Command implements Backend. The owner's lock is held only to find the
// session; the command runs under the session's own lock, so that a slow
// one (a prompt waiting for a run that is finishing) holds up nobody else.
func (b *Local) Command(ctx context.Context, c Caller, id string, cmd Command) error {
	o, err := b.owner(c)
	if err != nil {
		return err
	}
	if cmd.Type == "abort" {
		o.mu.Lock()
		l := o.live[id]
		if l == nil {
			_, err := o.keyLocked(ctx, id)
			o.mu.Unlock()
			return err // not open: nothing runs
		}
		o.mu.Unlock()
		l.sess.Abort()
		return l.sess.Wait(ctx)
	}
	m, err := userMessage(cmd)
	if err != nil {
		return err
	}
	if b.isDraining() {
		return ErrDraining
	}
	l, err := b.hold(ctx, o, id)
	if err != nil {
		return err
	}
	defer l.mu.RUnlock()
	l.used.Store(time.Now().UnixNano())
	switch cmd.Type {
	case "steer":
		return l.sess.Steer(ctx, m)
	case "follow_up":
		return l.sess.FollowUp(ctx, m)
	case "prompt":
	default:
		return &InvalidError{Field: "type", Msg: fmt.Sprintf("%q is not prompt, steer, follow_up or abort", cmd.Type)}
	}
	if c.Quota.Runs > 0 || c.Quota.ToolCallsPerMinute > 0 {
		// A quota check and the run it allows are one step.
		o.startMu.Lock()
		defer o.startMu.Unlock()
		if !l.sess.Busy() {
			if err := o.runQuota(c.Quota); err != nil {
				return err
			}
		}
	}
	err = l.sess.Prompt(b.base, m, session.Behavior(cmd.StreamingBehavior))
	if errors.Is(err, session.ErrBusy) {
		return fmt.Errorf("%w (a prompt needs streamingBehavior \"steer\" or \"followUp\" now)", ErrBusy)
	}
	return err
}

// hold finds session id, opening it if need be, and holds it (l.mu read)
// for a command. A session closed as idle between the two is opened again;
// one deleted is ErrNotFound.
func (b *Local) hold(ctx context.Context, o *owner, id string) (*live, error) {
	for {
		o.mu.Lock()
		l, err := b.findLocked(ctx, o, id)
		o.mu.Unlock()
		if err != nil {
			return nil, err
		}
		l.mu.RLock()
		if !l.closed {
			return l, nil
		}
		l.mu.RUnlock()
		if err := ctx.Err(); err != nil {
			return nil, err
		}
	}
}

// userMessage makes the user message of a prompt, steer or follow_up, as
// pi's RPC mode does.
func userMessage(c Command) (*host.UserMessage, error) {
	if c.Message == nil {
		return nil, &InvalidError{Field: "message", Msg: "missing"}
	}
	content := host.Contents{host.TextContent{Text: *c.Message}}
	for i, img := range c.Images {
		if img.Data == "" || img.MimeType == "" {
			return nil, &InvalidError{Field: fmt.Sprintf("images[%d]", i), Msg: `want {"type":"image","data":base64,"mimeType"}`}
		}
		content = append(content, img)
	}
	return &host.UserMessage{Content: content, Timestamp: time.Now().UnixMilli()}, nil
}

// runQuota refuses a new run past the owner's runs or tool calls.
func (o *owner) runQuota(q Quota) error {
	if q.Runs > 0 {
		o.mu.Lock()
		all := make([]*live, 0, len(o.live))
		for _, l := range o.live {
			all = append(all, l)
		}
		o.mu.Unlock()
		n := 0
		for _, l := range all {
			// Running, not Busy: a run that has sent agent_end reads as
			// idle to the client, who may start the next at once.
			if l.sess.Running() {
				n++
			}
		}
		if n >= q.Runs {
			return &QuotaError{What: "runs at once", Limit: q.Runs, RetryAfter: time.Second}
		}
	}
	if q.ToolCallsPerMinute > 0 {
		if wait := o.callsWait(q.ToolCallsPerMinute, time.Now(), false); wait > 0 {
			return &QuotaError{What: "tool calls per minute", Limit: q.ToolCallsPerMinute, RetryAfter: wait}
		}
	}
	return nil
}

// callsWait drops calls older than a minute and returns how long until
// one more is allowed (0: now); with take, an allowed call is counted.
// The window has its own lock: the hook runs without o.mu.
func (o *owner) callsWait(limit int, now time.Time, take bool) time.Duration {
	o.callsMu.Lock()
	defer o.callsMu.Unlock()
	cut := 0
	for cut < len(o.calls) && now.Sub(o.calls[cut]) >= time.Minute {
		cut++
	}
	o.calls = o.calls[cut:]
	if len(o.calls) >= limit {
		return o.calls[0].Add(time.Minute).Sub(now)
	}
	if take {
		o.calls = append(o.calls, now)
	}
	return 0
}

// toolCallQuota is the first before-hook of every session: a call past
// the owner's tool calls per minute is blocked, and the model told why.
func (o *owner) toolCallQuota(ctx context.Context, c *host.ToolCallContext) (*host.BeforeToolCallResult, error) {
	o.callsMu.Lock()
	limit := o.quota.ToolCallsPerMinute
	o.callsMu.Unlock()
	if limit <= 0 {
		return nil, nil
	}
	if wait := o.callsWait(limit, time.Now(), true); wait > 0 {
		return &host.BeforeToolCallResult{Block: true, Reason: fmt.Sprintf("Tool call quota exceeded: this server allows %s per minute for this token; the next is allowed in %ds.", words.Count(limit, "tool call"), int(wait.Seconds()+0.999))}, nil
	}
	return nil, nil
}

// interrupted is the last after-hook of every session: a call that failed
// because the server aborted its run to stop is recorded as the sessions
// rule records a call cut short by a crash ([session.InterruptedText]):
// it may or may not have had its effects.
func (b *Local) interrupted(ctx context.Context, c *host.AfterToolCallContext) (*host.AfterToolCallResult, error) {
	if !c.IsError || ctx.Err() == nil || !b.stopping.Load() {
		return nil, nil
	}
	return &host.AfterToolCallResult{Content: host.Text(session.InterruptedText), IsError: host.Bool(true)}, nil
}

// Drain implements Backend. A command that passed the draining check
// just before Drain began may still start a run: the busy sessions are
// looked for again until none is left.
func (b *Local) Drain(ctx context.Context) error {
	b.mu.Lock()
	b.draining = true
	b.mu.Unlock()
	for {
		busy := b.busy()
		if len(busy) == 0 {
			return nil
		}
		for _, l := range busy {
			if l.sess.Wait(ctx) != nil && ctx.Err() != nil {
				break
			}
		}
		if ctx.Err() != nil {
			break
		}
	}
	b.stopping.Store(true)
	all := b.busy()
	for _, l := range all {
		l.sess.Abort()
	}
	for _, l := range all {
		l.sess.Wait(context.Background())
	}
	return fmt.Errorf("serve: runs still going at the deadline were aborted: %w", ctx.Err())
}

// busy lists the open sessions whose run is going.
func (b *Local) busy() []*live {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []*live
	for _, o := range b.owners {
		o.mu.Lock()
		for _, l := range o.live {
			if l.sess.Busy() {
				out = append(out, l)
			}
		}
		o.mu.Unlock()
	}
	return out
}

// Close implements Backend: it aborts every run and closes every session.
func (b *Local) Close() error {
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return nil
	}
	b.closed, b.draining = true, true
	b.shut.Store(true)
	owners := b.owners
	b.mu.Unlock()
	b.stopping.Store(true)
	b.cancel()
	var errs []error
	for _, o := range owners {
		o.mu.Lock()
		for _, l := range o.live {
			if err := l.close(); err != nil {
				errs = append(errs, err)
			}
			delete(o.live, l.id)
			o.releaseLocked(l.id, l.j)
		}
		for _, j := range o.journals {
			j.end(ErrClosed)
		}
		o.mu.Unlock()
	}
	return errors.Join(errs...)
}
