package scripted

import (
	"context"
	"sync"
	"time"

	"github.com/wasmagent/wasmagent/host"
)

// Texts of the faux provider (docs/loop.md 12).
const (
	abortedText   = "Request was aborted"
	exhaustedText = "No more faux responses queued"
)

// Model replays turns, one per request. It is safe for concurrent use.
type Model struct {
	info        host.ModelInfo
	chunkTokens int
	// Now stamps the messages; nil means time.Now.
	Now func() time.Time

	mu       sync.Mutex
	turns    []Turn
	requests []*host.Request
}

var (
	_ host.Model          = (*Model)(nil)
	_ host.ModelDescriber = (*Model)(nil)
)

// New returns a model that replays s.
func New(s *Script) *Model {
	m := &Model{
		info:        host.ModelInfo{API: "scripted", Provider: "scripted", ID: "scripted-1"},
		chunkTokens: 4,
		turns:       append([]Turn(nil), s.Turns...),
	}
	if s.Model.API != "" {
		m.info.API = s.Model.API
	}
	if s.Model.Provider != "" {
		m.info.Provider = s.Model.Provider
	}
	if s.Model.ID != "" {
		m.info.ID = s.Model.ID
	}
	if s.ChunkTokens > 0 {
		m.chunkTokens = s.ChunkTokens
	}
	return m
}

// Of returns a model that replays turns with the default settings.
func Of(turns ...Turn) *Model { return New(&Script{Turns: turns}) }

// ModelInfo implements host.ModelDescriber.
func (m *Model) ModelInfo() host.ModelInfo { return m.info }

// Push queues more turns.
func (m *Model) Push(turns ...Turn) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.turns = append(m.turns, turns...)
}

// Remaining returns how many turns are left.
func (m *Model) Remaining() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.turns)
}

// Requests returns the requests received so far.
func (m *Model) Requests() []*host.Request {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]*host.Request(nil), m.requests...)
}

func (m *Model) next(req *host.Request) (Turn, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.requests = append(m.requests, req)
	if len(m.turns) == 0 {
		return Turn{}, false
	}
	t := m.turns[0]
	m.turns = m.turns[1:]
	return t, true
}

func (m *Model) now() int64 {
	if m.Now != nil {
		return m.Now().UnixMilli()
	}
	return time.Now().UnixMilli()
}

// Stream implements host.Model with the faux provider's event sequence.
func (m *Model) Stream(ctx context.Context, req *host.Request, emit func(host.AssistantMessageEvent)) *host.AssistantMessage {
	turn, ok := m.next(req)
	if !ok {
		return m.fail(emit, m.message(Turn{}, host.StopReasonError, exhaustedText))
	}
	if turn.Throw != "" {
		return m.fail(emit, m.message(Turn{}, host.StopReasonError, turn.Throw))
	}
	final := m.message(turn, stopReason(turn), turn.ErrorMessage)
	final.Content = turn.Content
	partial := m.message(turn, final.StopReason, final.ErrorMessage)
	if ctx.Err() != nil || !sleep(ctx, turn.DelayMs) {
		return m.aborted(emit, partial)
	}
	emit(host.AssistantMessageEvent{Type: host.StreamStart, Partial: partial.Clone()})
	s := &streamer{m: m, ctx: ctx, emit: emit, partial: partial, delay: turn.ChunkDelayMs}
	for i, block := range turn.Content {
		if ctx.Err() != nil || !s.block(i, block) {
			return m.aborted(emit, partial)
		}
	}
	if final.StopReason == host.StopReasonError || final.StopReason == host.StopReasonAborted {
		emit(host.AssistantMessageEvent{Type: host.StreamError, Reason: final.StopReason, Error: final})
		return final
	}
	emit(host.AssistantMessageEvent{Type: host.StreamDone, Reason: final.StopReason, Message: final})
	return final
}

func stopReason(t Turn) host.StopReason {
	if t.StopReason != "" {
		return t.StopReason
	}
	if len(t.Content.ToolCalls()) > 0 {
		return host.StopReasonToolUse
	}
	return host.StopReasonStop
}

func (m *Model) message(t Turn, reason host.StopReason, errMsg string) *host.AssistantMessage {
	msg := &host.AssistantMessage{
		Content:      host.Contents{},
		API:          m.info.API,
		Provider:     m.info.Provider,
		Model:        m.info.ID,
		ResponseID:   t.ResponseID,
		StopReason:   reason,
		ErrorMessage: errMsg,
		Timestamp:    m.now(),
	}
	msg.SetOrder(host.OrderMade) // as pi-ai's faux provider makes its messages
	if t.Usage != nil {
		msg.Usage = *t.Usage
	}
	return msg
}

// fail ends the stream with a single error event and no start.
func (m *Model) fail(emit func(host.AssistantMessageEvent), msg *host.AssistantMessage) *host.AssistantMessage {
	emit(host.AssistantMessageEvent{Type: host.StreamError, Reason: msg.StopReason, Error: msg})
	return msg
}

// aborted ends the stream as the faux provider does on an abort: the
// partial so far, stopReason "aborted", "Request was aborted".
func (m *Model) aborted(emit func(host.AssistantMessageEvent), partial *host.AssistantMessage) *host.AssistantMessage {
	msg := partial.Clone()
	msg.StopReason = host.StopReasonAborted
	msg.ErrorMessage = abortedText
	msg.Timestamp = m.now()
	return m.fail(emit, msg)
}

// sleep waits ms milliseconds; it reports false if ctx ended first.
func sleep(ctx context.Context, ms int) bool {
	if ms <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(time.Duration(ms) * time.Millisecond)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
