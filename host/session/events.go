package session

import (
	"slices"

	"github.com/wasmagent/wasmagent/host"
)

// QueueUpdateEvent is pi's queue_update: the texts waiting in the
// steering and follow-up queues, sent whenever they change.
type QueueUpdateEvent struct {
	Steering []string `json:"steering"`
	FollowUp []string `json:"followUp"`
}

// AutoRetryStartEvent is pi's auto_retry_start: a transient model error
// will be retried after DelayMs.
type AutoRetryStartEvent struct {
	Attempt      int    `json:"attempt"`
	MaxAttempts  int    `json:"maxAttempts"`
	DelayMs      int64  `json:"delayMs"`
	ErrorMessage string `json:"errorMessage"`
}

// AutoRetryEndEvent is pi's auto_retry_end.
type AutoRetryEndEvent struct {
	Success    bool   `json:"success"`
	Attempt    int    `json:"attempt"`
	FinalError string `json:"finalError,omitempty"`
}

// SessionInfoChangedEvent is pi's session_info_changed: the session's
// name was set.
type SessionInfoChangedEvent struct {
	Name string `json:"name"`
}

// ThinkingLevelChangedEvent is pi's thinking_level_changed: the thinking
// level was set to another.
type ThinkingLevelChangedEvent struct {
	Level string `json:"level"`
}

// EventType implements Event.
func (ThinkingLevelChangedEvent) EventType() string { return "thinking_level_changed" }

// EventType implements Event.
func (SessionInfoChangedEvent) EventType() string { return "session_info_changed" }

// EventType implements Event.
func (QueueUpdateEvent) EventType() string { return "queue_update" }

// EventType implements Event.
func (AutoRetryStartEvent) EventType() string { return "auto_retry_start" }

// EventType implements Event.
func (AutoRetryEndEvent) EventType() string { return "auto_retry_end" }

// MarshalEvent encodes e as one JSON object with a leading "type" field,
// the Agent's events exactly as [host.MarshalEvent] does.
func MarshalEvent(e Event) ([]byte, error) {
	if he, ok := e.(host.Event); ok {
		return host.MarshalEvent(he)
	}
	body, err := host.MarshalJS(e)
	if err != nil {
		return nil, err
	}
	out := []byte(`{"type":"` + e.EventType() + `"`)
	if len(body) > 2 {
		out = append(append(out, ','), body[1:]...)
		return out, nil
	}
	return append(out, '}'), nil
}

func (s *Session) queueUpdate() QueueUpdateEvent {
	s.mu.Lock()
	defer s.mu.Unlock()
	return QueueUpdateEvent{Steering: append([]string{}, s.steerQ...), FollowUp: append([]string{}, s.followQ...)}
}

// dequeue drops text from the queue it was delivered from.
func (s *Session) dequeue(text string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	// Anywhere in the queue, not only at its head: two commands that
	// queue at once reach the Agent's queue in either order.
	for _, q := range []*[]string{&s.steerQ, &s.followQ} {
		if i := slices.Index(*q, text); i >= 0 {
			*q = slices.Delete(*q, i, i+1)
			return true
		}
	}
	return false
}
