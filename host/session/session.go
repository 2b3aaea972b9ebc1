package session

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/wasmagent/wasmagent/host"
)

// Options configure a Session.
type Options struct {
	// Store keeps the session; nil keeps it in memory only (--no-session).
	Store Store
	// Cwd is recorded in the header of new sessions.
	Cwd string
	// Agent configures the Agent; its Messages are replaced by the
	// session's.
	Agent host.AgentOptions
	// Models are the models set_model may choose from; the first is the
	// Agent's at the start when Agent.Model is nil.
	Models []Model
	// Retry is the auto-retry policy (zero: none).
	Retry RetryPolicy
	// Warn receives what loading said: dropped lines, interrupted calls.
	Warn func(string)
	// Now stamps entries; nil means time.Now.
	Now func() time.Time
	// HookEvents sends every hook's decision to the listeners as a
	// [HookDecisionEvent] (hook_decision), after Agent.OnHook.
	HookEvents bool
}

// Model is a model a session may use.
type Model struct {
	Info  host.ModelInfo
	Model host.Model
	// BaseURL and MaxTokens are what the configuration says of the
	// server and the answer's length ("" and 0: not said), for the doors
	// that describe a model as pi does.
	BaseURL   string
	MaxTokens int
}

// Session is one conversation: an Agent and the log that keeps it. Every
// message is appended to the log at its message_end, before any listener
// hears of it. Its methods are the session commands every door (the CLI,
// the RPC mode) translates into; they are safe for concurrent use.
type Session struct {
	opts  Options
	agent *host.Agent

	mu         sync.Mutex
	log        Log // nil until the first append, and always when ephemeral
	header     Header
	path       string
	taken      map[string]bool // entry ids in the file
	entries    []Entry         // the file's entries after the header
	leaf       string
	persisted  int // how many of the Agent's messages are in the log
	name       string
	model      int // index in opts.Models, -1 when none
	steerMode  host.QueueMode
	followMode host.QueueMode
	steerQ     []string
	followQ    []string
	// thinking is the level a session that records none starts with:
	// the configured one, then the last one set, as pi's settings keep
	// its default thinking level.
	thinking  string
	listeners []listenerEntry
	nextID    int
	run       *runState
	retry     retryState
}

type runState struct {
	done chan struct{}
	err  error
	// cancel ends the run's first attempt, started or not: Abort can
	// come after Prompt returned and before the agent's run began, when
	// the agent has no run to abort yet.
	cancel context.CancelFunc
	ended  atomic.Bool // its agent_end went out (a retry's agent_start clears it)
}

type listenerEntry struct {
	id int
	fn Listener
}

// Listener receives the session's events: the Agent's ([host.Event]) and
// the session's own ([QueueUpdateEvent], [AutoRetryStartEvent],
// [AutoRetryEndEvent], and [HookDecisionEvent] when asked for), in order.
// Events of one tool call come one at a time; the calls of a parallel
// batch may send their hook decisions at the same time, so a listener
// that keeps state guards it.
type Listener func(ctx context.Context, e Event) error

// Event is a [host.Event] or one of the session's own events.
type Event interface{ EventType() string }

// Errors of the session commands.
var (
	ErrBusy       = errors.New("the agent is working: wait for it to finish, or abort it")
	ErrNoEntry    = errors.New("no such entry")
	ErrNotForking = errors.New("only a user message can be forked from")
)

// New starts a new session. Its file is created at the first message.
func New(opts Options) *Session {
	s := newSession(opts)
	s.reset(opts.Cwd, "")
	return s
}

func newSession(opts Options) *Session {
	if opts.Warn == nil {
		opts.Warn = func(string) {}
	}
	s := &Session{opts: opts, taken: map[string]bool{}, model: -1, steerMode: orOne(opts.Agent.SteeringMode), followMode: orOne(opts.Agent.FollowUpMode)}
	if opts.Agent.Model == nil && len(opts.Models) > 0 {
		opts.Agent.Model, s.model = opts.Models[0].Model, 0
	}
	for i, m := range opts.Models {
		if sameModel(m.Model, opts.Agent.Model) {
			s.model = i
		}
	}
	opts.Agent.Messages = nil
	s.reportHooks(&opts)
	if opts.Agent.ConvertToLLM == nil {
		opts.Agent.ConvertToLLM = ConvertToLLM
	}
	s.opts = opts
	s.agent = host.NewAgent(opts.Agent)
	s.thinking = s.agent.State().ThinkingLevel
	s.agent.Subscribe(s.persist)
	s.agent.Subscribe(s.forward)
	return s
}

func orOne(m host.QueueMode) host.QueueMode {
	if m == "" {
		return host.OneAtATime
	}
	return m
}

// Open resumes the stored session key: it loads the branch ending at the
// last entry, closes the tool calls that never got a result with error
// results (appended to the log, and reported through Warn), and holds the
// session until Close.
func Open(ctx context.Context, opts Options, key string) (*Session, error) {
	s := newSession(opts)
	if err := s.load(ctx, key); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// Fork starts a new session holding a copy of the stored session key's
// entries, pointing to it as its parent (pi's --fork).
func Fork(ctx context.Context, opts Options, key string) (*Session, error) {
	if opts.Store == nil {
		return nil, fmt.Errorf("session: no store to fork %s from", key)
	}
	t, err := opts.Store.Load(ctx, key)
	if err != nil {
		return nil, err
	}
	s := newSession(opts)
	s.reset(opts.Cwd, key)
	if err := s.adopt(ctx, t, t.Leaf(), true); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// reset makes s a new, empty session (no file yet).
func (s *Session) reset(cwd, parent string) {
	now := s.now()
	s.header = Header{Type: TypeSession, Version: Version, ID: newSessionID(now), Timestamp: timestamp(now), Cwd: cwd, ParentSession: parent}
	s.log, s.path, s.leaf, s.persisted, s.name = nil, "", "", 0, ""
	s.taken = map[string]bool{}
	s.entries = nil
	s.steerQ, s.followQ = nil, nil
	s.agent.Reset()
	s.agent.SetThinkingLevel(s.thinking)
}

func (s *Session) load(ctx context.Context, key string) error {
	if s.opts.Store == nil {
		return fmt.Errorf("session: no store to load %s from", key)
	}
	l, t, err := s.opts.Store.Open(ctx, key)
	if err != nil {
		return err
	}
	s.mu.Lock()
	s.log, s.path = l, key
	s.header = t.Header
	s.mu.Unlock()
	for _, w := range t.Warnings {
		s.opts.Warn(fmt.Sprintf("session %s: %s", key, w))
	}
	return s.adopt(ctx, t, t.Leaf(), false)
}

// adopt makes the branch of t ending at leaf the Agent's transcript. With
// copyAll the entries are written to a new log (a fork).
func (s *Session) adopt(ctx context.Context, t *Transcript, leaf string, copyAll bool) error {
	entries := t.Entries
	if copyAll {
		entries = t.Branch(leaf)
	}
	v := t.View(leaf)
	if v.ThinkingLevel != "" {
		s.agent.SetThinkingLevel(v.ThinkingLevel)
	}
	s.agent.SetMessages(v.Messages)
	s.mu.Lock()
	for _, e := range entries {
		s.taken[e.ID] = true
	}
	s.entries = slices.Clone(entries)
	s.leaf, s.name = leaf, t.Name()
	s.persisted = len(v.Messages)
	s.mu.Unlock()
	if copyAll && len(entries) > 0 {
		if err := s.create(ctx, entries); err != nil {
			return err
		}
	}
	calls, results := Interrupted(v.Messages, s.now().UnixMilli())
	if len(calls) == 0 {
		return nil
	}
	msgs := make([]host.Message, len(results))
	for i, r := range results {
		msgs[i] = r
	}
	s.agent.SetMessages(append(v.Messages, msgs...))
	if err := s.appendMessages(ctx, msgs...); err != nil {
		return err
	}
	s.opts.Warn(DescribeInterrupted(calls))
	return nil
}

func (s *Session) now() time.Time {
	if s.opts.Now != nil {
		return s.opts.Now()
	}
	return time.Now()
}

// Agent returns the session's Agent. Messages it runs are stored; its
// transcript must be changed only through the session's commands.
func (s *Session) Agent() *host.Agent { return s.agent }

// Subscribe adds a listener and returns the function that removes it.
func (s *Session) Subscribe(fn Listener) (unsubscribe func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.nextID++
	id := s.nextID
	s.listeners = append(s.listeners, listenerEntry{id, fn})
	return func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.listeners = slices.DeleteFunc(s.listeners, func(l listenerEntry) bool { return l.id == id })
	}
}

func (s *Session) emit(ctx context.Context, e Event) error {
	s.mu.Lock()
	ls := slices.Clone(s.listeners)
	s.mu.Unlock()
	for _, l := range ls {
		if err := l.fn(ctx, e); err != nil {
			return err
		}
	}
	return nil
}

// persist is the Agent's first listener: each message goes to the log at
// its message_end; at agent_end, any message the run added without one (a
// run that failed) follows.
func (s *Session) persist(ctx context.Context, e host.Event) error {
	switch e.(type) {
	case host.AgentStartEvent, host.AgentEndEvent:
		s.mu.Lock()
		if s.run != nil {
			_, end := e.(host.AgentEndEvent)
			s.run.ended.Store(end)
		}
		s.mu.Unlock()
	}
	switch e := e.(type) {
	case host.MessageEndEvent:
		return s.appendMessages(ctx, e.Message)
	case host.AgentEndEvent:
		msgs := s.agent.State().Messages
		s.mu.Lock()
		n := s.persisted
		s.mu.Unlock()
		if n < len(msgs) {
			return s.appendMessages(ctx, msgs[n:]...)
		}
	}
	return nil
}

// forward passes the Agent's events on, keeping the queues' view current.
func (s *Session) forward(ctx context.Context, e host.Event) error {
	if ms, ok := e.(host.MessageStartEvent); ok {
		if u, ok := ms.Message.(*host.UserMessage); ok && s.dequeue(u.Content.TextOf()) {
			if err := s.emit(ctx, s.queueUpdate()); err != nil {
				return err
			}
		}
	}
	if err := s.emit(ctx, e); err != nil {
		return err
	}
	return s.retriedAnswer(ctx, e)
}

func (s *Session) appendMessages(ctx context.Context, msgs ...host.Message) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	entries := make([]Entry, len(msgs))
	for i, m := range msgs {
		entries[i] = s.entryLocked(TypeMessage)
		entries[i].Message = m
	}
	if err := s.appendLocked(ctx, entries); err != nil {
		return err
	}
	s.persisted += len(msgs)
	return nil
}

// entryLocked makes the next entry of the branch; the caller appends it.
func (s *Session) entryLocked(typ string) Entry {
	e := Entry{Type: typ, ID: newEntryID(func(id string) bool { return s.taken[id] }), ParentID: s.leaf, Timestamp: timestamp(s.now())}
	s.taken[e.ID] = true
	s.leaf = e.ID
	return e
}

// appendLocked writes entries made by entryLocked; when it fails it
// takes them back.
func (s *Session) appendLocked(ctx context.Context, entries []Entry) error {
	var err error
	switch {
	case s.opts.Store == nil:
	case s.log == nil:
		err = s.createLocked(ctx, s.entries, entries)
	default:
		err = s.log.Append(ctx, entries...)
	}
	if err != nil {
		// Nothing was written: the branch goes on from where it was.
		for _, e := range entries {
			delete(s.taken, e.ID)
		}
		if len(entries) > 0 {
			s.leaf = entries[0].ParentID
		}
		return err
	}
	s.entries = append(s.entries, entries...)
	return nil
}

func (s *Session) create(ctx context.Context, entries []Entry) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.createLocked(ctx, entries)
}

// createLocked creates the log with the entries held so far and more.
func (s *Session) createLocked(ctx context.Context, entries ...[]Entry) error {
	if s.opts.Store == nil {
		return nil
	}
	l, err := s.opts.Store.Create(ctx, s.header, slices.Concat(entries...))
	if err != nil {
		return err
	}
	s.log, s.path = l, Path(l)
	if s.path == "" {
		s.path = s.header.ID
	}
	return nil
}

// Close ends the session: it aborts a run, waits for it, and releases the
// log.
func (s *Session) Close() error {
	s.agent.Abort()
	s.Wait(context.Background())
	s.agent.WaitForIdle(context.Background())
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.log == nil {
		return nil
	}
	err := s.log.Close()
	s.log = nil
	return err
}
