package session

import (
	"github.com/wasmagent/wasmagent/host"
)

// State is what get_state reports.
type State struct {
	Model         *Model
	ThinkingLevel string
	IsStreaming   bool
	SteeringMode  host.QueueMode
	FollowUpMode  host.QueueMode
	SessionFile   string // "" while the session has no file
	// NewFile is, while the session has no file yet, the file it will be
	// written to, when the store can say (the file store can).
	NewFile             string
	SessionID           string
	SessionName         string
	MessageCount        int
	PendingMessageCount int
	AutoRetry           bool
}

// State returns a snapshot of the session's state.
func (s *Session) State() State {
	a := s.agent.State()
	s.mu.Lock()
	defer s.mu.Unlock()
	// A run that has sent agent_end is no longer streaming (pi's
	// isStreaming), though it may still be settling or waiting to retry.
	ended := s.run != nil && s.run.ended.Load()
	st := State{
		ThinkingLevel: a.ThinkingLevel, IsStreaming: !ended && (s.run != nil || a.IsStreaming),
		SteeringMode: s.steerMode, FollowUpMode: s.followMode,
		SessionFile: s.path, SessionID: s.header.ID, SessionName: s.name,
		MessageCount: len(a.Messages), PendingMessageCount: len(s.steerQ) + len(s.followQ),
		AutoRetry: !s.retry.off,
	}
	if pf, ok := s.opts.Store.(interface{ PathFor(Header) string }); ok && s.path == "" {
		st.NewFile = pf.PathFor(s.header)
	}
	if s.model >= 0 && s.model < len(s.opts.Models) {
		m := s.opts.Models[s.model]
		st.Model = &m
	}
	return st
}

// Models returns the models set_model may choose from.
func (s *Session) Models() []Model {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Model(nil), s.opts.Models...)
}

// Messages returns the transcript.
func (s *Session) Messages() []host.Message { return s.agent.State().Messages }

// LastAssistantText returns the text of the last assistant message (not
// counting an aborted one without content), trimmed, and false when there
// is none or it has no text: pi's getLastAssistantText.
func (s *Session) LastAssistantText() (string, bool) {
	msgs := s.Messages()
	for i := len(msgs) - 1; i >= 0; i-- {
		m, ok := msgs[i].(*host.AssistantMessage)
		if !ok || m.StopReason == host.StopReasonAborted && len(m.Content) == 0 {
			continue
		}
		text := host.JSTrim(m.Content.TextOf())
		return text, text != ""
	}
	return "", false
}

// Stats counts a session's messages and tokens.
type Stats struct {
	UserMessages      int
	AssistantMessages int
	ToolCalls         int
	ToolResults       int
	TotalMessages     int
	Tokens            host.Usage // summed over assistant messages
}

// Stats returns the counts of the current transcript.
func (s *Session) Stats() Stats { return Count(s.Messages()) }

// Count counts messages and sums the assistant messages' usage.
func Count(msgs []host.Message) Stats {
	var st Stats
	st.TotalMessages = len(msgs)
	for _, m := range msgs {
		switch m := m.(type) {
		case *host.UserMessage:
			st.UserMessages++
		case *host.AssistantMessage:
			st.AssistantMessages++
			st.ToolCalls += len(m.Content.ToolCalls())
			u := &st.Tokens
			u.Input += m.Usage.Input
			u.Output += m.Usage.Output
			u.CacheRead += m.Usage.CacheRead
			u.CacheWrite += m.Usage.CacheWrite
			u.TotalTokens += m.Usage.TotalTokens
			u.Cost.Total += m.Usage.Cost.Total
		case *host.ToolResultMessage:
			st.ToolResults++
		}
	}
	return st
}
