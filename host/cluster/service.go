package cluster

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/wasmagent/wasmagent/host"
	"github.com/wasmagent/wasmagent/host/eventwire"
	"github.com/wasmagent/wasmagent/host/serve"
	"github.com/wasmagent/wasmagent/host/session"
)

// ServiceOptions configure the cluster backend of `wasmagent serve`.
type ServiceOptions struct {
	// Store keeps the sessions; every host of the cluster uses the same.
	Store session.Store
	// Session is the template of every session's options (the Agent as
	// agent.toml configures it, the models, the retry policy, Warn); its
	// Store is replaced by Store.
	Session session.Options
	// Prepare, if set, is called with each session this host opens.
	Prepare func(owner, id string, s *session.Session)
	// Events bound what message_update events cost, as for `run --json`.
	Events eventwire.Options
	// Slots is how many sessions this host runs at once (0: DefaultSlots).
	Slots int
	// EventReadAhead bounds the bytes of events this host's event streams
	// hold ahead of their clients, all together (0:
	// DefaultEventReadAhead); a stream opened when its prefetch does not
	// fit reads each event when its client asks for it.
	EventReadAhead int
	// LeaseTTL: how long a silent host keeps its sessions (0:
	// DefaultLeaseTTL); the store's lease TTL.
	LeaseTTL time.Duration
	// Replicas is how many servers keep each stream and bucket (0: 1).
	Replicas int
	// ReplyWait is how long a command waits for the host running its
	// session to take it (0: DefaultReplyWait); past it, the command is
	// stored and will run when a host is free, and Command returns nil.
	ReplyWait time.Duration
}

// DefaultReplyWait is the zero ServiceOptions' ReplyWait.
const DefaultReplyWait = 10 * time.Second

// Service is serve's Backend over JetStream: any host of the cluster
// takes any request; the session runs on whichever host has a free slot
// (member), and its events reach every host's clients.
type Service struct {
	h    *member
	o    ServiceOptions
	base context.Context // runs are bounded by it
	stop context.CancelFunc
	done chan struct{} // Run has returned

	mu       sync.Mutex
	draining bool
	closed   bool
	closers  []func() // the connection, the embedded server (in order)
}

var _ serve.Backend = (*Service)(nil)

// newService starts the service's host on js.
func newService(ctx context.Context, js jetstream.JetStream, o ServiceOptions) (*Service, error) {
	if o.ReplyWait <= 0 {
		o.ReplyWait = DefaultReplyWait
	}
	s := &Service{o: o, done: make(chan struct{})}
	h, err := newMember(ctx, js, memberConfig{
		Store: o.Store, Options: s.sessionOptions, Prepare: o.Prepare, Slots: o.Slots, ReadAhead: o.EventReadAhead,
		LeaseTTL: o.LeaseTTL, Replicas: o.Replicas, Events: o.Events, Warn: o.Session.Warn,
	})
	if err != nil {
		return nil, err
	}
	s.h = h
	s.base, s.stop = context.WithCancel(context.Background())
	go func() {
		defer close(s.done)
		h.Run(s.base)
	}()
	return s, nil
}

// sessionOptions are the options of session id: the template, with what
// it was created with.
func (s *Service) sessionOptions(ctx context.Context, id string) (session.Options, string, error) {
	m, err := readMeta(ctx, s.h.kv.meta, "", id)
	if err != nil {
		return session.Options{}, "", err
	}
	opts := s.o.Session
	opts.HookEvents = true // the page marks blocked, rewritten and asked calls
	if m.SystemPrompt != nil {
		opts.Agent.SystemPrompt = *m.SystemPrompt
	}
	if m.Model != nil {
		i := slices.IndexFunc(opts.Models, func(x session.Model) bool {
			return x.Info.Provider == m.Model.Provider && x.Info.ID == m.Model.ModelID
		})
		if i < 0 {
			return opts, "", fmt.Errorf("session %s: model %s/%s is not one of this host's agent.toml", id, m.Model.Provider, m.Model.ModelID)
		}
		opts.Agent.Model = opts.Models[i].Model
	}
	return opts, m.Owner, nil
}

func (s *Service) state() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return serve.ErrClosed
	}
	return nil
}

func (s *Service) isDraining() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.draining
}

// Create implements serve.Backend: the session is stored at once (with
// no entries, or its name), so that any host can run it.
func (s *Service) Create(ctx context.Context, c serve.Caller, req serve.CreateRequest) (serve.SessionInfo, error) {
	if err := s.state(); err != nil {
		return serve.SessionInfo{}, err
	}
	if s.isDraining() {
		return serve.SessionInfo{}, serve.ErrDraining
	}
	if q := c.Quota.Sessions; q > 0 {
		ids, err := ownedIDs(ctx, s.h.kv.meta, c.Owner)
		if err != nil {
			return serve.SessionInfo{}, httpError(err)
		}
		if len(ids) >= q {
			return serve.SessionInfo{}, &serve.QuotaError{What: "sessions", Limit: q}
		}
	}
	if req.Model != nil && !slices.ContainsFunc(s.o.Session.Models, func(x session.Model) bool {
		return x.Info.Provider == req.Model.Provider && x.Info.ID == req.Model.ModelID
	}) {
		return serve.SessionInfo{}, &serve.InvalidError{Field: "model", Msg: fmt.Sprintf("%s/%s is not a model of this server's agent.toml", req.Model.Provider, req.Model.ModelID)}
	}
	meta := sessionMeta{Owner: c.Owner, SystemPrompt: req.SystemPrompt, Model: req.Model, Created: time.Now().UTC()}
	probe := session.New(session.Options{Cwd: s.o.Session.Cwd})
	id := probe.State().SessionID
	probe.Close()
	header := session.Header{Type: session.TypeSession, Version: session.Version, ID: id, Timestamp: meta.Created.Format("2006-01-02T15:04:05.000Z"), Cwd: s.o.Session.Cwd}
	var entries []session.Entry
	if req.Name != "" {
		entries = append(entries, session.Entry{Type: session.TypeSessionInfo, ID: id[len(id)-8:], Timestamp: header.Timestamp, Name: req.Name})
	}
	if err := writeMeta(ctx, s.h.kv.meta, id, meta); err != nil {
		return serve.SessionInfo{}, httpError(err)
	}
	// Counted again once written: creates racing on other hosts (or
	// here) all see each other, so the quota is never passed; under such
	// a race all of them may be refused, none is kept past it.
	if q := c.Quota.Sessions; q > 0 {
		ids, err := ownedIDs(ctx, s.h.kv.meta, c.Owner)
		if err == nil && len(ids) > q {
			err = &serve.QuotaError{What: "sessions", Limit: q}
		}
		if err != nil {
			removeMeta(context.WithoutCancel(ctx), s.h.kv.meta, c.Owner, id)
			if qe, ok := err.(*serve.QuotaError); ok {
				return serve.SessionInfo{}, qe
			}
			return serve.SessionInfo{}, httpError(err)
		}
	}
	l, err := s.o.Store.Create(ctx, header, entries)
	if err != nil {
		removeMeta(context.WithoutCancel(ctx), s.h.kv.meta, c.Owner, id)
		return serve.SessionInfo{}, httpError(err)
	}
	l.Close()
	return serve.SessionInfo{ID: id, Name: req.Name, Created: meta.Created, Modified: meta.Created, Model: req.Model}, nil
}

// List implements serve.Backend: newest first. It reads the store's
// summaries (one List), not each transcript.
func (s *Service) List(ctx context.Context, c serve.Caller) ([]serve.SessionInfo, error) {
	if err := s.state(); err != nil {
		return nil, err
	}
	ids, err := ownedIDs(ctx, s.h.kv.meta, c.Owner)
	if err != nil {
		return nil, httpError(err)
	}
	out := []serve.SessionInfo{}
	if len(ids) == 0 {
		return out, nil
	}
	owned := map[string]bool{}
	for _, id := range ids {
		owned[id] = true
	}
	stored, err := s.o.Store.List(ctx)
	if err != nil {
		return nil, httpError(err)
	}
	running, err := s.running(ctx, c.Owner)
	if err != nil {
		return nil, httpError(err)
	}
	for _, st := range stored {
		if !owned[st.ID] {
			continue
		}
		m, err := readMeta(ctx, s.h.kv.meta, c.Owner, st.ID)
		if errors.Is(err, serve.ErrNotFound) {
			continue // removed meanwhile
		}
		if err != nil {
			return nil, httpError(err)
		}
		out = append(out, serve.SessionInfo{ID: st.ID, Name: st.Name, Created: m.Created, Modified: st.Modified,
			MessageCount: st.Messages, FirstMessage: st.First, Model: m.Model, IsStreaming: running[st.ID]})
	}
	slices.SortFunc(out, func(a, b serve.SessionInfo) int { return b.Created.Compare(a.Created) })
	return out, nil
}

// Get implements serve.Backend.
func (s *Service) Get(ctx context.Context, c serve.Caller, id string) (serve.SessionInfo, error) {
	if err := s.state(); err != nil {
		return serve.SessionInfo{}, err
	}
	m, err := readMeta(ctx, s.h.kv.meta, c.Owner, id)
	if err != nil {
		return serve.SessionInfo{}, httpError(err)
	}
	t, err := s.transcript(ctx, id)
	if err != nil {
		return serve.SessionInfo{}, err
	}
	info := serve.SessionInfo{ID: id, Name: t.Name(), Created: m.Created, Modified: m.Created, Model: m.Model}
	for _, e := range t.Entries {
		if ts, err := time.Parse(time.RFC3339Nano, e.Timestamp); err == nil && ts.After(info.Modified) {
			info.Modified = ts
		}
	}
	for _, msg := range t.View(t.Leaf()).Messages {
		info.MessageCount++
		if u, ok := msg.(*host.UserMessage); ok && info.FirstMessage == "" {
			info.FirstMessage = u.Content.TextOf()
		}
	}
	if _, err := s.h.kv.running.Get(ctx, runningKey(m.Owner, id)); err == nil {
		info.IsStreaming = true
	}
	if last, err := lastEvent(ctx, s.h.js, id); err != nil {
		return serve.SessionInfo{}, httpError(err)
	} else if last > 0 {
		info.LastEventID = strconv.FormatUint(last, 10)
	}
	return info, nil
}

// findKey returns the store key of session id, or serve.ErrNotFound. The
// JetStream store's keys are the ids; another store is searched.
func findKey(ctx context.Context, st session.Store, id string) (string, error) {
	if _, ok := st.(*Store); ok {
		return id, nil
	}
	info, err := session.Find(ctx, st, id)
	if errors.Is(err, session.ErrNotFound) || err == nil && info.ID != id {
		return "", serve.ErrNotFound
	}
	return info.Key, err
}

// transcript loads session id from the store.
func (s *Service) transcript(ctx context.Context, id string) (*session.Transcript, error) {
	key, err := findKey(ctx, s.o.Store, id)
	if err != nil {
		return nil, httpError(err)
	}
	t, err := s.o.Store.Load(ctx, key)
	if errors.Is(err, session.ErrNotFound) {
		return nil, serve.ErrNotFound
	}
	if err != nil {
		return nil, httpError(err)
	}
	return t, nil
}

// Messages implements serve.Backend: the current branch, as stored.
func (s *Service) Messages(ctx context.Context, c serve.Caller, id string) ([]host.Message, error) {
	if err := s.state(); err != nil {
		return nil, err
	}
	if _, err := readMeta(ctx, s.h.kv.meta, c.Owner, id); err != nil {
		return nil, httpError(err)
	}
	t, err := s.transcript(ctx, id)
	if err != nil {
		return nil, err
	}
	return t.View(t.Leaf()).Messages, nil
}

// Delete implements serve.Backend: the run is aborted, then the session,
// its commands and its metadata removed; its event streams end.
func (s *Service) Delete(ctx context.Context, c serve.Caller, id string) error {
	if err := s.state(); err != nil {
		return err
	}
	m, err := readMeta(ctx, s.h.kv.meta, c.Owner, id)
	if err != nil {
		return httpError(err)
	}
	if err := s.abortAndWait(ctx, m, id); err != nil {
		return err
	}
	if err := removeMeta(ctx, s.h.kv.meta, m.Owner, id); err != nil {
		return httpError(err)
	}
	if key, err := findKey(ctx, s.o.Store, id); err == nil {
		if err := s.remove(ctx, key); err != nil && !errors.Is(err, session.ErrNotFound) {
			return httpError(err)
		}
	}
	if err := endEvents(ctx, s.h.js, id); err != nil {
		return httpError(err)
	}
	purgeSubject(ctx, s.h.js, cmdStream, cmdSubject(id))
	s.h.kv.cursors.Purge(ctx, id)
	return nil
}

// remove removes a session from the store. The host that ran it may
// still be closing it after its run's end (or its abort): a session held
// is tried again until the lease's TTL has passed.
func (s *Service) remove(ctx context.Context, key string) error {
	deadline := time.Now().Add(2 * s.h.cfg.LeaseTTL)
	for {
		err := s.o.Store.Remove(ctx, key)
		var locked *session.LockedError
		if !errors.As(err, &locked) || time.Now().After(deadline) {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// Drain implements serve.Backend: this host takes no new work; runs
// going on here may end until ctx is done, then are aborted (their tool
// calls recorded as interrupted); their work goes back to the queue, so
// another host continues what was pending.
func (s *Service) Drain(ctx context.Context) error {
	s.mu.Lock()
	s.draining = true
	s.mu.Unlock()
	s.h.drain()
	for s.h.Running() > 0 {
		select {
		case <-ctx.Done():
			s.h.stopping.Store(true)
			s.stop()
			<-s.done
			return fmt.Errorf("cluster: runs still going at the deadline were aborted: %w", ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
	}
	return nil
}

// Close implements serve.Backend: it aborts this host's runs (their work
// goes back to the queue) and closes the connection.
func (s *Service) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed, s.draining = true, true
	closers := s.closers
	s.mu.Unlock()
	s.h.stopping.Store(true)
	s.stop()
	<-s.done
	for _, c := range closers {
		c()
	}
	return nil
}
