package session

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/wasmagent/wasmagent/host"
)

// Behavior says what a prompt does while the agent works.
type Behavior string

// Behaviors of pi's prompt command.
const (
	Reject   Behavior = ""         // fail with ErrBusy
	Steer    Behavior = "steer"    // queue as steering
	FollowUp Behavior = "followUp" // queue as a follow-up
)

// Prompt starts a run with m and returns once it is accepted; the run goes
// on in the background, bounded by ctx (Wait waits for it). While a run
// is active, m is queued as b says, or refused.
func (s *Session) Prompt(ctx context.Context, m *host.UserMessage, b Behavior) error {
	s.settle()
	s.mu.Lock()
	if s.run != nil {
		s.mu.Unlock()
		switch b {
		case Steer:
			return s.Steer(ctx, m)
		case FollowUp:
			return s.FollowUp(ctx, m)
		case Reject:
			return fmt.Errorf("%w (a prompt needs streamingBehavior \"steer\" or \"followUp\" now)", ErrBusy)
		}
		return fmt.Errorf("streamingBehavior %q is not \"steer\" or \"followUp\"", b)
	}
	s.startLocked(ctx, func(ctx context.Context) error { return s.agent.Prompt(ctx, m) })
	s.mu.Unlock()
	return nil
}

// Continue starts a run from the transcript as it is (pi's continue): it
// needs a last message that is not the assistant's, or a queued message.
func (s *Session) Continue(ctx context.Context) error {
	s.settle()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.run != nil {
		return ErrBusy
	}
	st := s.agent.State()
	if len(st.Messages) == 0 {
		return host.ErrNoMessages
	}
	if st.Messages[len(st.Messages)-1].MessageRole() == host.RoleAssistant && len(s.steerQ)+len(s.followQ) == 0 {
		return host.ErrContinueFromAssistant
	}
	s.startLocked(ctx, s.agent.Continue)
	return nil
}

func (s *Session) startLocked(ctx context.Context, f func(context.Context) error) {
	runCtx, cancel := context.WithCancel(ctx)
	r := &runState{done: make(chan struct{}), cancel: cancel}
	s.run = r
	go func() {
		defer cancel()
		err := s.retrying(ctx, func(context.Context) error { return f(runCtx) })
		s.mu.Lock()
		r.err = err
		s.run = nil
		s.mu.Unlock()
		close(r.done)
	}()
}

// Wait waits for the active run, if any, and returns its error.
func (s *Session) Wait(ctx context.Context) error {
	s.mu.Lock()
	r := s.run
	s.mu.Unlock()
	if r == nil {
		return nil
	}
	select {
	case <-r.done:
		return r.err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Steer queues m to be delivered after the current turn's tool calls.
func (s *Session) Steer(ctx context.Context, m *host.UserMessage) error {
	s.mu.Lock()
	s.steerQ = append(s.steerQ, m.Content.TextOf())
	s.mu.Unlock()
	s.agent.Steer(m)
	return s.emit(ctx, s.queueUpdate())
}

// FollowUp queues m to be delivered when the agent would stop.
func (s *Session) FollowUp(ctx context.Context, m *host.UserMessage) error {
	s.mu.Lock()
	s.followQ = append(s.followQ, m.Content.TextOf())
	s.mu.Unlock()
	s.agent.FollowUp(m)
	return s.emit(ctx, s.queueUpdate())
}

// Abort cancels the active run and any retry it waits for.
func (s *Session) Abort() {
	s.AbortRetry()
	s.mu.Lock()
	if s.run != nil {
		s.run.cancel()
	}
	s.mu.Unlock()
	s.agent.Abort()
}

// Busy reports whether a run is active.
func (s *Session) Busy() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.run != nil
}

// Running reports whether a run is active, as a command finds it: a run
// that has sent agent_end (no longer streaming, as State says) is first
// waited for, briefly, as settle does, so that a quota counting runs
// agrees with what a client sees.
func (s *Session) Running() bool {
	s.settle()
	return s.Busy()
}

// idle returns ErrBusy while a run is active (after settle).
func (s *Session) idle() error {
	s.settle()
	if s.Busy() {
		return ErrBusy
	}
	return nil
}

// settle waits for a run that has sent agent_end to return: it is only
// finishing, and a client that sends a command as soon as it sees
// agent_end, as pi's clients do, must find the session idle rather than
// be refused (or have a steer land in a run that is over).
func (s *Session) settle() {
	s.mu.Lock()
	r := s.run
	s.mu.Unlock()
	if r != nil && r.ended.Load() {
		select {
		case <-r.done:
		case <-time.After(finishingWait):
		}
	}
}

// finishingWait bounds how long a command waits for a run that has sent
// agent_end (an auto-retry may start another).
const finishingWait = 2 * time.Second

// NewSession closes the current session and starts an empty one; parent,
// if not empty, is recorded as its parent.
func (s *Session) NewSession(ctx context.Context, parent string) error {
	if err := s.idle(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.closeLogLocked(); err != nil {
		return err
	}
	s.reset(s.opts.Cwd, parent)
	return nil
}

func (s *Session) closeLogLocked() error {
	if s.log == nil {
		return nil
	}
	err := s.log.Close()
	s.log = nil
	return err
}

// Switch closes the current session and resumes the stored one ref names
// (an id, a unique id prefix, or a path).
func (s *Session) Switch(ctx context.Context, ref string) error {
	if err := s.idle(); err != nil {
		return err
	}
	if s.opts.Store == nil {
		return fmt.Errorf("sessions are off (--no-session): nothing to switch to")
	}
	info, err := Find(ctx, s.opts.Store, ref)
	if err != nil {
		return err
	}
	// The session in use is loaded again too, as pi does: what is
	// queued is dropped, the rest read back from its file.
	s.mu.Lock()
	prev := s.path
	if err := s.closeLogLocked(); err != nil {
		s.mu.Unlock()
		return err
	}
	s.reset(s.opts.Cwd, "")
	s.mu.Unlock()
	err = s.load(ctx, info.Key)
	if err == nil {
		return nil
	}
	// Back to the session we left, if it had a file.
	s.mu.Lock()
	s.closeLogLocked()
	s.reset(s.opts.Cwd, "")
	s.mu.Unlock()
	if prev != "" {
		if back := s.load(ctx, prev); back != nil {
			err = fmt.Errorf("%w; and the previous session did not reopen: %v", err, back)
		}
	}
	return err
}

// ForkAt starts a new session holding the branch before the user message
// of entry id, as pi's fork command, and returns that message's text.
func (s *Session) ForkAt(ctx context.Context, id string) (string, error) {
	if err := s.idle(); err != nil {
		return "", err
	}
	s.mu.Lock()
	t := s.transcriptLocked()
	var target *Entry
	for i := range t.Entries {
		if t.Entries[i].ID == id {
			target = &t.Entries[i]
		}
	}
	if target == nil {
		s.mu.Unlock()
		return "", fmt.Errorf("fork: entry %q: %w", id, ErrNoEntry)
	}
	u, ok := target.Message.(*host.UserMessage)
	if target.Type != TypeMessage || !ok {
		s.mu.Unlock()
		return "", fmt.Errorf("fork: entry %q: %w", id, ErrNotForking)
	}
	parent := s.path
	err := s.closeLogLocked()
	s.reset(s.opts.Cwd, parent)
	s.mu.Unlock()
	if err != nil {
		return "", err
	}
	// Before any answer the branch carries nothing over, as in pi (which
	// writes a session only once it holds an answer, and opens the fork
	// from its file): the new session is empty, not even named.
	if !slices.ContainsFunc(t.Branch(target.ParentID), isAnswer) {
		return u.Content.TextOf(), nil
	}
	if err := s.adopt(ctx, t, target.ParentID, true); err != nil {
		return "", err
	}
	return u.Content.TextOf(), nil
}

func isAnswer(e Entry) bool {
	_, ok := e.Message.(*host.AssistantMessage)
	return e.Type == TypeMessage && ok
}

// transcriptLocked is the session's entries as a transcript.
func (s *Session) transcriptLocked() *Transcript {
	return &Transcript{Header: s.header, Entries: slices.Clone(s.entries)}
}

// ForkPoint is a user message a session can be forked from.
type ForkPoint struct {
	EntryID string `json:"entryId"`
	Text    string `json:"text"`
}

// ForkPoints lists the user messages with text of every branch, in the
// file's order, as pi's getUserMessagesForForking does.
func (s *Session) ForkPoints() []ForkPoint {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []ForkPoint
	for _, e := range s.entries {
		if u, ok := e.Message.(*host.UserMessage); ok && e.Type == TypeMessage {
			if text := u.Content.TextOf(); text != "" {
				out = append(out, ForkPoint{e.ID, text})
			}
		}
	}
	return out
}

// SetName records the session's display name.
func (s *Session) SetName(ctx context.Context, name string) error {
	name = host.JSTrim(name)
	if name == "" {
		return errors.New("Session name cannot be empty") // pi's words
	}
	s.mu.Lock()
	e := s.entryLocked(TypeSessionInfo)
	e.Name = name
	if err := s.appendLocked(ctx, []Entry{e}); err != nil {
		s.mu.Unlock()
		return err
	}
	s.name = name
	s.mu.Unlock()
	return s.emit(ctx, SessionInfoChangedEvent{Name: name})
}

// ThinkingLevels are the thinking levels, in the order
// CycleThinkingLevel goes through them (pi's, for a model that reasons).
var ThinkingLevels = []string{"off", "minimal", "low", "medium", "high", "xhigh"}

// SetThinkingLevel sets the thinking level for the next run. As pi, a
// level that changes is recorded and announced (ThinkingLevelChangedEvent);
// setting the level in force does nothing.
func (s *Session) SetThinkingLevel(ctx context.Context, level string) error {
	if !slices.Contains(ThinkingLevels, level) {
		return fmt.Errorf("thinking level %q is not off, minimal, low, medium, high or xhigh", level)
	}
	if cmp.Or(s.agent.State().ThinkingLevel, "off") == level {
		return nil
	}
	s.agent.SetThinkingLevel(level)
	s.mu.Lock()
	s.thinking = level
	e := s.entryLocked(TypeThinkingLevel)
	e.ThinkingLevel = level
	err := s.appendLocked(ctx, []Entry{e})
	s.mu.Unlock()
	if err != nil {
		return err
	}
	return s.emit(ctx, ThinkingLevelChangedEvent{Level: level})
}

// CycleThinkingLevel sets the level after the one in force
// (ThinkingLevels, round) and returns it.
func (s *Session) CycleThinkingLevel(ctx context.Context) (string, error) {
	i := slices.Index(ThinkingLevels, cmp.Or(s.agent.State().ThinkingLevel, "off"))
	next := ThinkingLevels[(i+1)%len(ThinkingLevels)]
	return next, s.SetThinkingLevel(ctx, next)
}

// SetModel picks one of Options.Models for the next run and records it.
func (s *Session) SetModel(ctx context.Context, provider, id string) (Model, error) {
	for i, m := range s.opts.Models {
		if m.Info.Provider == provider && m.Info.ID == id {
			s.agent.SetModel(m.Model)
			s.mu.Lock()
			defer s.mu.Unlock()
			s.model = i
			e := s.entryLocked(TypeModelChange)
			raw, err := json.Marshal(struct {
				Type     string  `json:"type"`
				ID       string  `json:"id"`
				ParentID *string `json:"parentId"`
				Time     string  `json:"timestamp"`
				Provider string  `json:"provider"`
				ModelID  string  `json:"modelId"`
			}{TypeModelChange, e.ID, nullable(e.ParentID), e.Timestamp, provider, id})
			if err != nil {
				return Model{}, err
			}
			e.Raw = raw
			return m, s.appendLocked(ctx, []Entry{e})
		}
	}
	return Model{}, fmt.Errorf("model not found: %s/%s (the models are those of agent.toml)", provider, id)
}

func nullable(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// SetSteeringMode sets how many steering messages one turn takes.
func (s *Session) SetSteeringMode(m host.QueueMode) error {
	if m == "" || !m.Valid() {
		return fmt.Errorf("steering mode %q is not \"all\" or \"one-at-a-time\"", m)
	}
	s.agent.SetSteeringMode(m)
	s.mu.Lock()
	s.steerMode = m
	s.mu.Unlock()
	return nil
}

// SetFollowUpMode sets how many follow-up messages one stop takes.
func (s *Session) SetFollowUpMode(m host.QueueMode) error {
	if m == "" || !m.Valid() {
		return fmt.Errorf("follow-up mode %q is not \"all\" or \"one-at-a-time\"", m)
	}
	s.agent.SetFollowUpMode(m)
	s.mu.Lock()
	s.followMode = m
	s.mu.Unlock()
	return nil
}

// Reconfigure replaces what agent.toml gave the Agent (model, tools,
// hooks, prompt, modes) between runs, keeping the transcript.
func (s *Session) Reconfigure(opts host.AgentOptions, models []Model) error {
	if err := s.idle(); err != nil {
		return err
	}
	a := s.agent
	index := -1
	if opts.Model == nil && len(models) > 0 {
		opts.Model, index = models[0].Model, 0
	}
	a.SetSystemPrompt(opts.SystemPrompt)
	a.SetModel(opts.Model)
	a.SetTools(opts.Tools)
	a.SetHooks(opts.BeforeToolCall, opts.AfterToolCall)
	a.SetToolExecution(opts.ToolExecution, opts.MaxConcurrency)
	s.mu.Lock()
	s.opts.Agent, s.opts.Models, s.model = opts, models, index
	for i, m := range models {
		if sameModel(m.Model, opts.Model) {
			s.model = i
		}
	}
	s.mu.Unlock()
	return nil
}
