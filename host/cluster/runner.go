package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/wasmagent/wasmagent/host"
	"github.com/wasmagent/wasmagent/host/eventwire"
	"github.com/wasmagent/wasmagent/host/session"
)

// runner runs one session on this host, from taking its work message to
// acknowledging it:
//
//  1. open the session in the store (which takes its lease; a session
//     held elsewhere goes back to the queue for later);
//  2. if the previous host stopped mid-run, publish session_resumed and
//     the interrupted tool calls' results, and continue the run;
//  3. apply the commands after the session's cursor that are not in its
//     log, then each new one as it is stored;
//  4. when no run is active and no command is left, close the session,
//     acknowledge the work, and queue it again if a command came in
//     between.
//
// A runner whose events or appends are refused (another host took the
// session) stops at once and acknowledges nothing.
type runner struct {
	h    *Host
	id   string
	work jetstream.Msg
	sess *session.Session
	ev   *eventLog

	idle chan struct{} // a run may have ended
	lost chan struct{} // closed when the session was taken over
	once sync.Once

	mu      sync.Mutex
	cursor  uint64           // the settled cursor, as stored
	applied uint64           // the last command applied
	pending []pendingCommand // applied, its message not yet in the log
}

// runOne runs the session of work message m.
func (h *Host) runOne(ctx context.Context, m jetstream.Msg) {
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
		case <-ctx.Done():
			return
		}
	}
}

func (r *runner) run(ctx context.Context) error {
	h := r.h
	info, err := session.Find(ctx, h.cfg.Store, r.id)
	if errors.Is(err, session.ErrNotFound) || err == nil && info.ID != r.id {
		r.work.Term() // removed: nothing to run
		return nil
	}
	if err != nil {
		r.work.NakWithDelay(h.times.retry)
		return err
	}
	calls, err := r.interruptedCalls(ctx, info.Key)
	if err != nil {
		r.work.NakWithDelay(h.times.retry)
		return err
	}
	opts, err := h.cfg.Options(ctx, r.id)
	if err != nil {
		r.work.NakWithDelay(h.times.retry)
		return err
	}
	opts.Store = h.cfg.Store
	sess, err := session.Open(ctx, opts, info.Key)
	if err != nil {
		r.work.NakWithDelay(h.times.retry)
		var locked *session.LockedError
		if errors.As(err, &locked) {
			return nil // another host runs it; its work comes back later
		}
		return err
	}
	r.sess = sess
	if h.cfg.Prepare != nil {
		h.cfg.Prepare(sess)
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

// interruptedCalls are the tool calls without results in the stored
// session: the previous host died while they ran.
func (r *runner) interruptedCalls(ctx context.Context, key string) ([]host.ToolCall, error) {
	t, err := r.h.cfg.Store.Load(ctx, key)
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
	md, err := r.work.Metadata()
	if err == nil && md.NumDelivered > 1 || len(calls) > 0 {
		if err := r.publishResumed(ctx, calls); err != nil {
			return err
		}
	}
	cursor, err := readCursor(ctx, r.h.kv, r.id)
	if err != nil {
		return err
	}
	r.cursor, r.applied = cursor, cursor
	cmds, err := readCommands(ctx, r.h.js, r.id, cursor)
	if err != nil {
		return err
	}
	if msgs := r.sess.Messages(); len(msgs) > 0 && msgs[len(msgs)-1].MessageRole() != host.RoleAssistant {
		if err := r.sess.Continue(ctx); err == nil {
			r.started(ctx)
		}
	}
	for _, c := range cmds {
		if r.inLog(c) {
			r.mu.Lock()
			r.applied = c.Seq
			r.mu.Unlock()
			continue
		}
		r.apply(ctx, c)
	}
	r.advance(ctx)
	return nil
}

// resumedEvent tells clients a host took the session over after its
// previous host stopped; the results of the calls it cut off follow as
// messages.
type resumedEvent struct {
	Type        string           `json:"type"`
	Interrupted []interruptedRef `json:"interrupted"`
}

type interruptedRef struct {
	ToolCallID string `json:"toolCallId"`
	ToolName   string `json:"toolName"`
}

func (r *runner) publishResumed(ctx context.Context, calls []host.ToolCall) error {
	ev := resumedEvent{Type: "session_resumed", Interrupted: []interruptedRef{}}
	want := map[string]bool{}
	for _, c := range calls {
		ev.Interrupted = append(ev.Interrupted, interruptedRef{c.ID, c.Name})
		want[c.ID] = true
	}
	data, err := json.Marshal(ev)
	if err != nil {
		return err
	}
	if _, err := r.ev.publish(ctx, data); err != nil {
		return err
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
