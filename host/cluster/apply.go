package cluster

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/wasmagent/wasmagent/host"
	"github.com/wasmagent/wasmagent/host/session"
)

// apply hands one command to the session. A steer or follow-up that
// finds no run active starts one (a cluster host keeps no idle session
// to hold it for the next prompt, as pi would).
func (r *runner) apply(ctx context.Context, c pendingCommand) {
	sess := r.sess
	r.toolQuota.Store(int64(c.Quota))
	m := userMessage(c)
	var err error
	switch c.Type {
	case "abort":
		sess.Abort()
		r.mu.Lock()
		r.pending, r.applied = nil, c.Seq // an abort cancels what waits too
		r.mu.Unlock()
		r.advance(ctx)
		go func() {
			sess.Wait(ctx)
			r.answer(c, nil)
			r.signalIdle()
		}()
		return
	case "prompt":
		err = sess.Prompt(ctx, m, session.Behavior(c.StreamingBehavior))
	case "steer", "follow_up":
		switch {
		case !sess.Busy():
			// Nothing to queue behind: the message starts the run, as a
			// prompt (queueing it and continuing would fail on a session
			// with no message yet, and leave it queued for later).
			err = sess.Prompt(ctx, m, "")
		case c.Type == "steer":
			err = sess.Steer(ctx, m)
		default:
			err = sess.FollowUp(ctx, m)
		}
	default:
		err = fmt.Errorf("%w: type %q", ErrBadCommand, c.Type)
	}
	r.mu.Lock()
	r.applied = c.Seq
	if err == nil {
		r.pending = append(r.pending, c)
	}
	r.mu.Unlock()
	r.answer(c, err)
	if err != nil {
		if c.Reply == "" {
			r.h.cfg.Warn(fmt.Sprintf("cluster: session %s: command %d (%s) refused: %v", r.id, c.Seq, c.Type, err))
		}
		r.advance(ctx)
		r.signalIdle()
		return
	}
	r.started(ctx)
}

func userMessage(c pendingCommand) *host.UserMessage {
	var content host.Contents
	if c.Message != "" || len(c.Images) == 0 {
		content = append(content, host.TextContent{Text: c.Message})
	}
	for _, img := range c.Images {
		content = append(content, img)
	}
	return &host.UserMessage{Content: content, Timestamp: c.Time}
}

// started watches the run a command started. A run that fails (its log
// or its events could not be written: the run stops at the first such
// error) is never taken for one that ended: a refused append means the
// session is another host's; any other failure is looked into when the
// runner is next idle (failedRun).
func (r *runner) started(ctx context.Context) {
	go func() {
		err := r.sess.Wait(ctx)
		var fenced *FencedError
		switch {
		case err == nil, ctx.Err() != nil: // ended, or the host stops (loop)
		case errors.As(err, &fenced), errors.Is(err, ErrFenced):
			r.takenOver() // an append was refused: the session is another host's
		default:
			r.mu.Lock()
			if r.failure == nil {
				r.failure = err
			}
			r.mu.Unlock()
		}
		r.signalIdle()
	}()
}

// failedRun ends the runner after its run failed with err. When this
// host's lease on the session is gone (it paused, or lost JetStream, past
// the lease's TTL), the session may be another host's: this host stops
// writing it, as when an append is refused, and leaves its work alone.
// Otherwise the session is closed and its work handed back, so that a
// host (this one, or another) resumes it from what was stored, as after
// a crash.
func (r *runner) failedRun(ctx context.Context, err error) error {
	if f := r.leaseGone(ctx); f != nil {
		return r.stop(fmt.Errorf("%w (the run had failed: %v)", f, err))
	}
	r.sess.Close()
	r.work.NakWithDelay(r.h.times.retry)
	return fmt.Errorf("the run failed, so the session goes back to the queue to be resumed from what was stored: %w", err)
}

// leaseGone returns a *FencedError when the session's lease is known to
// be held by another host, or by nobody; nil when it is this host's, or
// when the store cannot say (not a cluster store, or JetStream did not
// answer).
func (r *runner) leaseGone(ctx context.Context) error {
	st, ok := r.h.cfg.Store.(*Store)
	if !ok {
		return nil
	}
	holder, held, err := st.Holder(ctx, r.id)
	if err != nil || (held && holder == st.cfg.Holder) {
		return nil
	}
	return &FencedError{Session: r.id, Holder: holder}
}

func (r *runner) signalIdle() {
	select {
	case r.idle <- struct{}{}:
	default:
	}
}

// delivered settles the command whose message u is.
func (r *runner) delivered(ctx context.Context, u *host.UserMessage) {
	text := u.Content.TextOf()
	r.mu.Lock()
	for i, c := range r.pending {
		if c.Time == u.Timestamp && c.Message == text {
			r.pending = append(r.pending[:i:i], r.pending[i+1:]...)
			break
		}
	}
	r.mu.Unlock()
	r.advance(ctx)
}

// advance stores the cursor: the last command applied, or the one before
// the oldest whose message is not in the log yet.
func (r *runner) advance(ctx context.Context) {
	r.mu.Lock()
	next := r.applied
	if len(r.pending) > 0 {
		next = r.pending[0].Seq - 1
	}
	if next <= r.cursor {
		r.mu.Unlock()
		return
	}
	r.cursor = next
	r.mu.Unlock()
	if err := writeCursor(ctx, r.h.kv.cursors, r.id, next); err != nil {
		r.h.cfg.Warn(fmt.Sprintf("cluster: session %s: %v (a host taking it over finds the commands in its log)", r.id, err))
	}
}

// loop applies new commands as they are stored until the session is
// idle with nothing left, the host stops, or another host takes it.
func (r *runner) loop(ctx context.Context) error {
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	cmds := make(chan pendingCommand)
	r.mu.Lock()
	from := r.applied
	r.mu.Unlock()
	go r.follow(cctx, from, cmds)
	r.signalIdle()
	for {
		select {
		case c := <-cmds:
			r.mu.Lock()
			old := c.Seq <= r.applied
			r.mu.Unlock()
			if !old {
				r.apply(ctx, c)
			}
		case <-r.idle:
			select {
			case <-r.lost:
				return r.stop(ErrFenced) // the run that ended was refused
			default:
			}
			r.mu.Lock()
			failure := r.failure
			r.mu.Unlock()
			if failure != nil {
				return r.failedRun(ctx, failure)
			}
			if r.sess.Busy() {
				continue
			}
			if r.sess.State().PendingMessageCount > 0 {
				if r.sess.Continue(ctx) == nil {
					r.started(ctx)
				}
				continue
			}
			done, err := r.caughtUp(ctx)
			if err != nil {
				time.AfterFunc(time.Second, r.signalIdle) // JetStream did not answer: ask again
				continue
			}
			if !done {
				continue // the command is on its way through follow
			}
			return r.finish(ctx)
		case <-r.lost:
			return r.stop(ErrFenced)
		case <-ctx.Done():
			// The host stops: the run is aborted, and the work goes back.
			r.sess.Close()
			r.work.Nak()
			return nil
		}
	}
}

// follow sends the session's commands stored after seq to cmds.
func (r *runner) follow(ctx context.Context, after uint64, cmds chan<- pendingCommand) {
	cfg := jetstream.OrderedConsumerConfig{FilterSubjects: []string{cmdSubject(r.id)}, DeliverPolicy: jetstream.DeliverByStartSequencePolicy, OptStartSeq: after + 1}
	c, err := r.h.js.OrderedConsumer(ctx, cmdStream, cfg)
	if err != nil {
		r.h.cfg.Warn(fmt.Sprintf("cluster: session %s: following commands: %v", r.id, err))
		return
	}
	it, err := c.Messages()
	if err != nil {
		return
	}
	stop := context.AfterFunc(ctx, it.Stop)
	defer stop()
	defer it.Stop()
	for {
		m, err := it.Next()
		if err != nil {
			return
		}
		md, err := m.Metadata()
		if err != nil {
			continue
		}
		pc := pendingCommand{Seq: md.Sequence.Stream, Time: md.Timestamp.UnixMilli(), Reply: m.Headers().Get(replyHeader), Quota: quotaOf(m.Headers())}
		c, err := DecodeCommand(m.Data())
		if err != nil {
			r.h.cfg.Warn(fmt.Sprintf("cluster: session %s: command %d skipped: %v", r.id, pc.Seq, err))
			c = Command{Type: "invalid"}
		}
		pc.Command = c
		select {
		case cmds <- pc:
		case <-ctx.Done():
			return
		}
	}
}

// caughtUp reports whether every stored command has been applied.
func (r *runner) caughtUp(ctx context.Context) (bool, error) {
	last, err := lastCommand(ctx, r.h.js, r.id)
	if err != nil {
		return false, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return last <= r.applied, nil
}

func lastCommand(ctx context.Context, js jetstream.JetStream, id string) (uint64, error) {
	s, err := js.Stream(ctx, cmdStream)
	if err != nil {
		return 0, unavailableOp("reading commands", err)
	}
	m, err := s.GetLastMsgForSubject(ctx, cmdSubject(id))
	if errors.Is(err, jetstream.ErrMsgNotFound) {
		return 0, nil
	}
	if err != nil {
		return 0, unavailableOp("reading commands", err)
	}
	return m.Sequence, nil
}

// finish releases an idle session and acknowledges its work; a command
// stored since the last check queues the work again.
func (r *runner) finish(ctx context.Context) error {
	r.advance(ctx)
	if err := r.sess.Close(); err != nil {
		r.work.NakWithDelay(r.h.times.retry)
		return err
	}
	if err := r.work.DoubleAck(ctx); err != nil {
		return unavailableOp("acknowledging the session's work", err)
	}
	last, err := lastCommand(ctx, r.h.js, r.id)
	r.mu.Lock()
	more := err != nil || last > r.cursor
	r.mu.Unlock()
	if more {
		return markWork(ctx, r.h.js, r.id)
	}
	return nil
}

// stop ends a session this host may no longer write: its run is
// aborted, and its work (now another host's) is left alone.
func (r *runner) stop(cause error) error {
	r.sess.Close()
	return fmt.Errorf("stopped: %w", cause)
}
