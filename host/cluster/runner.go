package cluster

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/wasmagent/wasmagent/host"
	"github.com/wasmagent/wasmagent/host/eventwire"
	"github.com/wasmagent/wasmagent/host/serve"
	"github.com/wasmagent/wasmagent/host/session"
)

// runner runs one session on this host, from taking its work message to
// acknowledging it:
//
//  1. open the session in the store (which takes its lease; a session
//     held elsewhere goes back to the queue for later);
//  2. if the previous host stopped mid-run, publish the results the
//     store gave the tool calls it cut off, and continue the run;
//  3. apply the commands after the session's cursor that are not in its
//     log, then each new one as it is stored;
//  4. when no run is active and no command is left, close the session,
//     acknowledge the work, and queue it again if a command came in
//     between.
//
// A runner whose events or appends are refused (another host took the
// session) stops at once and acknowledges nothing.
type runner struct {
	h    *member
	id   string
	work jetstream.Msg
	sess *session.Session
	ev   *eventLog

	runKey    atomic.Pointer[string] // its key in the running bucket, once the session is open (the heartbeat reads it meanwhile)
	owner     string                 // whose quotas its runs count against
	toolQuota atomic.Int64           // tool calls per minute, from the last command

	idle chan struct{} // a run may have ended
	lost chan struct{} // closed when the session was taken over
	once sync.Once

	mu      sync.Mutex
	cursor  uint64           // the settled cursor, as stored
	applied uint64           // the last command applied
	pending []pendingCommand // applied, its message not yet in the log
	failure error            // the first run that failed for another reason than fencing
}

// runOne runs the session of work message m.
func (h *member) runOne(ctx context.Context, m jetstream.Msg) {
	id := idOf(m.Subject())
	if checkID(id) != nil {
		m.Term()
		return
	}
	h.mu.Lock()
	if h.running[id] != nil {
		h.mu.Unlock()
		m.NakWithDelay(h.times.retry)
		return
	}
	r := &runner{h: h, id: id, work: m, idle: make(chan struct{}, 1), lost: make(chan struct{})}
	h.running[id] = r
	h.mu.Unlock()
	defer func() {
		h.mu.Lock()
		delete(h.running, id)
		h.mu.Unlock()
	}()
	hb, stop := context.WithCancel(ctx)
	defer stop()
	go r.heartbeat(hb)
	if err := r.run(ctx); err != nil {
		h.cfg.Warn(fmt.Sprintf("cluster: session %s: %v", id, err))
	}
}

// heartbeat tells the server this host still works on the session.
func (r *runner) heartbeat(ctx context.Context) {
	t := time.NewTicker(r.h.times.heartbeat)
	defer t.Stop()
	for {
		select {
		case <-t.C:
			r.work.InProgress()
			r.markRunning(ctx)
		case <-ctx.Done():
			return
		}
	}
}

// giveBack settles the work message of a run that could not start: a
// session removed has nothing to run (the message is dropped); any other
// failure hands it back for a later try.
func (r *runner) giveBack(err error) error {
	if errors.Is(err, serve.ErrNotFound) {
		r.work.Term()
		return nil
	}
	r.work.NakWithDelay(r.h.times.retry)
	return err
}

func (r *runner) run(ctx context.Context) error {
	h := r.h
	key, err := findKey(ctx, h.cfg.Store, r.id)
	if err != nil {
		return r.giveBack(err)
	}
	calls, err := r.interruptedCalls(ctx, key)
	if err != nil {
		return r.giveBack(err)
	}
	opts, owner, err := h.cfg.Options(ctx, r.id)
	if err != nil {
		return r.giveBack(err)
	}
	opts.Store = h.cfg.Store
	r.owner = owner
	opts.Agent.BeforeToolCall = append([]host.BeforeToolCallHook{host.BeforeToolCallFunc(r.toolCallQuota)}, opts.Agent.BeforeToolCall...)
	opts.Agent.AfterToolCall = append(slices.Clone(opts.Agent.AfterToolCall), host.AfterToolCallFunc(r.interrupted))
	sess, err := session.Open(ctx, opts, key)
	if err != nil {
		r.work.NakWithDelay(h.times.retry)
		var locked *session.LockedError
		if errors.As(err, &locked) {
			return nil // another host runs it; its work comes back later
		}
		return err
	}
	r.sess = sess
	runKey := runningKey(owner, r.id)
	r.runKey.Store(&runKey)
	r.markRunning(ctx)
	defer r.h.kv.running.Purge(context.WithoutCancel(ctx), runKey)
	if h.cfg.Prepare != nil {
		h.cfg.Prepare(owner, r.id, sess)
	}
	if r.ev, err = openEvents(ctx, h.js, r.id); err != nil {
		sess.Close()
		r.work.NakWithDelay(h.times.retry)
		return err
	}
	unsubscribe := sess.Subscribe(r.listener(ctx))
	defer unsubscribe()
	if err := r.resume(ctx, calls); err != nil {
		return r.stop(err)
	}
	return r.loop(ctx)
}

// interrupted is the last after-hook of every session a host runs: a
// call that failed because the host aborted its run to stop is recorded
// as the sessions rule records a call cut short by a crash
// ([session.InterruptedText]): it may or may not have had its effects.
func (r *runner) interrupted(ctx context.Context, c *host.AfterToolCallContext) (*host.AfterToolCallResult, error) {
	if !c.IsError || ctx.Err() == nil || !r.h.stopping.Load() {
		return nil, nil
	}
	return &host.AfterToolCallResult{Content: host.Text(session.InterruptedText), IsError: host.Bool(true)}, nil
}

// markRunning says this host runs the session, for the owner's runs
// quota; the entry expires when the host stops renewing it.
func (r *runner) markRunning(ctx context.Context) {
	if k := r.runKey.Load(); k != nil {
		r.h.kv.running.Put(ctx, *k, nil)
	}
}

func runningKey(owner, id string) string { return hex.EncodeToString([]byte(owner)) + "." + id }

// interruptedCalls are the tool calls without results in the stored
// session: the previous host died while they ran.
func (r *runner) interruptedCalls(ctx context.Context, key string) ([]host.ToolCall, error) {
	t, err := r.h.cfg.Store.Load(ctx, key)
	if errors.Is(err, session.ErrNotFound) {
		return nil, serve.ErrNotFound
	}
	if err != nil {
		return nil, err
	}
	calls, _ := session.Interrupted(t.View(t.Leaf()).Messages, 0)
	return calls, nil
}

// listener publishes the session's events, and settles the commands
// whose messages reach the log.
func (r *runner) listener(ctx context.Context) session.Listener {
	pctx := context.WithoutCancel(ctx)
	publish := func(obj []byte) error {
		c, cancel := context.WithTimeout(pctx, publishTimeout)
		defer cancel()
		_, err := r.ev.publish(c, obj)
		if errors.Is(err, ErrFenced) {
			r.takenOver()
		}
		return err
	}
	enc := eventwire.New(publish, r.h.cfg.Events)
	return func(ctx context.Context, e session.Event) error {
		he, ok := e.(host.Event)
		if !ok {
			line, err := session.MarshalEvent(e)
			if err != nil {
				return err
			}
			return publish(line)
		}
		if me, ok := he.(host.MessageEndEvent); ok {
			if u, ok := me.Message.(*host.UserMessage); ok {
				r.delivered(pctx, u)
			}
		}
		return enc.Event(ctx, he)
	}
}

// publishTimeout bounds one event's publish.
const publishTimeout = 10 * time.Second

func (r *runner) takenOver() { r.once.Do(func() { close(r.lost) }) }

// resume continues what the previous host left: it says so to clients
// when that host stopped mid-run, and continues a run that was cut off.
func (r *runner) resume(ctx context.Context, calls []host.ToolCall) error {
	if err := r.publishInterrupted(ctx, calls); err != nil {
		return err
	}
	cursor, err := readCursor(ctx, r.h.kv.cursors, r.id)
	if err != nil {
		return err
	}
	r.cursor, r.applied = cursor, cursor
	cmds, err := readCommands(ctx, r.h.js, r.id, cursor)
	if err != nil {
		return err
	}
	if msgs := r.sess.Messages(); len(msgs) > 0 && msgs[len(msgs)-1].MessageRole() != host.RoleAssistant {
		// The run continued here keeps the tool-call quota its last
		// command carried (a host sets it as it applies a command, and
		// this one applies none before the run goes on).
		if err := r.loadToolQuota(ctx); err != nil {
			return err
		}
		if err := r.sess.Continue(ctx); err == nil {
			r.started(ctx)
		}
	}
	for _, c := range cmds {
		if r.inLog(c) {
			r.mu.Lock()
			r.applied = c.Seq
			r.mu.Unlock()
			r.answer(c, nil)
			continue
		}
		r.apply(ctx, c)
	}
	r.advance(ctx)
	return nil
}

// loadToolQuota sets the tool-call quota from the session's last stored
// command, if it has one.
func (r *runner) loadToolQuota(ctx context.Context) error {
	s, err := r.h.js.Stream(ctx, cmdStream)
	if err != nil {
		return unavailableOp("reading the session's commands", err)
	}
	m, err := s.GetLastMsgForSubject(ctx, cmdSubject(r.id))
	switch {
	case errors.Is(err, jetstream.ErrMsgNotFound):
		return nil
	case err != nil:
		return unavailableOp("reading the session's commands", err)
	}
	r.toolQuota.Store(int64(quotaOf(m.Header)))
	return nil
}

// publishInterrupted publishes message_start and message_end of each
// result the store gave a call the previous host cut off. Clients see
// the results as pi's loop would have sent them; and a paused host that
// wakes finds the event subject moved on (its events are refused).
func (r *runner) publishInterrupted(ctx context.Context, calls []host.ToolCall) error {
	want := map[string]bool{}
	for _, c := range calls {
		want[c.ID] = true
	}
	for _, m := range r.sess.Messages() {
		tr, ok := m.(*host.ToolResultMessage)
		if !ok || !want[tr.ToolCallID] {
			continue
		}
		delete(want, tr.ToolCallID)
		for _, e := range []host.Event{host.MessageStartEvent{Message: tr}, host.MessageEndEvent{Message: tr}} {
			line, err := host.MarshalEvent(e)
			if err != nil {
				return err
			}
			if _, err := r.ev.publish(ctx, line); err != nil {
				return err
			}
		}
	}
	return nil
}

// inLog reports whether c's message is in the session already.
func (r *runner) inLog(c pendingCommand) bool {
	if c.Type == "abort" {
		return false
	}
	for _, m := range r.sess.Messages() {
		if u, ok := m.(*host.UserMessage); ok && u.Timestamp == c.Time && u.Content.TextOf() == c.Message {
			return true
		}
	}
	return false
}
