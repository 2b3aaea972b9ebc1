package eventwire

import (
	"context"
	"io"
	"strings"
	"sync"

	"github.com/wasmagent/wasmagent/host"
)

// Mode selects what message_update lines carry (see the package doc).
type Mode string

// The modes of an Encoder.
const (
	ModePi     Mode = "pi"
	ModeDeltas Mode = "deltas"
	ModeAll    Mode = "all"
)

// Defaults of Options.
const (
	DefaultFloor = 4 << 20
	DefaultRatio = 4
)

// Options configure an Encoder. The zero value is ModePi with the default
// budget.
type Options struct {
	// Mode is ModePi, ModeDeltas or ModeAll; anything else is ModePi.
	Mode Mode
	// Floor is what a message's updates may spend whatever its size
	// (0: DefaultFloor, 4 MiB; negative: none): up to it, a message
	// streams update by update as pi's does.
	Floor int64
	// Ratio is what a message's updates may spend beyond the floor, per
	// byte of the message (0: DefaultRatio; negative: none).
	Ratio int64
}

// Encoder encodes events and hands each JSON object to its send function.
type Encoder struct {
	send func(obj []byte) error
	opts Options

	mu        sync.Mutex
	err       error                    // send's first error, returned ever after
	spent     int64                    // bytes of the current message's updates sent
	factor    float64                  // encoded bytes per estimated byte, at least 1
	held      *host.MessageUpdateEvent // ModePi: an update not sent yet
	heldDelta strings.Builder          // its delta: the held deltas, concatenated
	deltas    []*heldDelta             // ModeDeltas: held deltas, one per block, in order

	tools map[string]*toolBudget // the running tool calls' update budgets, by id
}

// heldDelta is the deltas of one block not sent yet (ModeDeltas).
type heldDelta struct {
	e     host.AssistantMessageEvent
	delta strings.Builder
}

// New returns an Encoder that calls send with each event's JSON object (no
// newline). send must not retain obj.
func New(send func(obj []byte) error, opts Options) *Encoder {
	if opts.Mode != ModeDeltas && opts.Mode != ModeAll {
		opts.Mode = ModePi
	}
	if opts.Floor == 0 {
		opts.Floor = DefaultFloor
	}
	if opts.Ratio == 0 {
		opts.Ratio = DefaultRatio
	}
	opts.Floor, opts.Ratio = max(opts.Floor, 0), max(opts.Ratio, 0)
	return &Encoder{send: send, opts: opts, factor: 1}
}

// NewLines returns an Encoder that writes each event to w as one line.
func NewLines(w io.Writer, opts Options) *Encoder {
	return New(func(obj []byte) error {
		_, err := w.Write(append(obj, '\n'))
		return err
	}, opts)
}

var _ host.Listener = (*Encoder)(nil).Event

// Event encodes e, or holds it back (a message_update over its message's
// budget), or drops it (a tool_execution_update over its call's budget). It has the signature of a host.Listener. After send fails once,
// Event returns that error without sending again.
func (w *Encoder) Event(_ context.Context, e host.Event) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return w.err
	}
	if w.opts.Mode == ModeAll {
		return w.write(host.MarshalEvent(e))
	}
	switch e := e.(type) {
	case host.ToolExecutionUpdateEvent:
		w.toolUpdate(e)
		return w.err
	case host.ToolExecutionEndEvent:
		delete(w.tools, e.ToolCallID)
	case host.AgentStartEvent:
		clear(w.tools)
	case host.MessageUpdateEvent:
		if w.opts.Mode == ModeDeltas {
			w.updateDeltas(e)
		} else {
			w.update(e)
		}
		return w.err
	case host.MessageStartEvent:
		if _, ok := e.Message.(*host.AssistantMessage); ok {
			w.spent, w.factor, w.held, w.deltas = 0, 1, nil, nil
		}
	case host.MessageEndEvent:
		if _, ok := e.Message.(*host.AssistantMessage); ok {
			// The message_end carries everything a held update would;
			// held deltas go out first all the same (in ModePi within
			// twice the budget), so that concatenated deltas are whole.
			if w.held != nil && w.heldDelta.Len() > 0 {
				w.trySend(2)
			}
			w.held = nil
			w.flushDeltas(-1)
			if w.err != nil {
				return w.err
			}
		}
	}
	return w.write(host.MarshalEvent(e))
}

// update takes in the next update (ModePi): merged with the held one when
// both are deltas of one block. Otherwise the held update is superseded:
// a held delta still goes out if the message has spent less than twice
// its budget (so that clients that concatenate deltas, as pi's README
// shows, get whole blocks whenever a message has a sane number of them);
// anything else held is dropped, its state being in the newer update's
// message. Then what is held goes out if the budget allows.
func (w *Encoder) update(u host.MessageUpdateEvent) {
	if w.held != nil && mergeable(w.held.AssistantMessageEvent, u.AssistantMessageEvent) {
		w.heldDelta.WriteString(u.AssistantMessageEvent.Delta)
		w.held = &u
		w.trySend(1)
		return
	}
	if w.held != nil && w.heldDelta.Len() > 0 {
		w.trySend(2)
		if w.err != nil {
			return
		}
	}
	w.held = &u
	w.heldDelta.Reset()
	w.heldDelta.WriteString(u.AssistantMessageEvent.Delta)
	w.trySend(1)
}

func mergeable(a, b host.AssistantMessageEvent) bool {
	switch a.Type {
	case host.StreamTextDelta, host.StreamThinkingDelta, host.StreamToolCallDelta:
		return a.Type == b.Type && a.ContentIndex == b.ContentIndex
	}
	return false
}

// trySend sends the held update if times the message's budget allows it.
// The estimate (linear in the message's blocks, not its bytes) decides
// whether to encode; the encoded size decides whether to send, and
// corrects later estimates, so that few encodings are thrown away.
func (w *Encoder) trySend(times int64) {
	allowance := times * (w.opts.Floor + w.opts.Ratio*messageSize(w.held.Message))
	est := updateSize(w.held, true)
	if w.spent+int64(float64(est)*w.factor) > allowance {
		return
	}
	b, err := w.encodeHeld()
	if err != nil {
		w.err = err
		return
	}
	if f := float64(len(b)+1) / float64(est); f > w.factor {
		w.factor = f
	}
	if w.spent+int64(len(b)+1) > allowance {
		return
	}
	w.spent += int64(len(b) + 1)
	w.held = nil
	w.err = w.send(b)
}

// updateDeltas takes in the next update (ModeDeltas). A delta joins the
// held deltas of its block; held deltas go out when the budget allows,
// one update per block. A start or end goes out at once (a block's end
// after its held deltas): nothing is ever dropped.
func (w *Encoder) updateDeltas(u host.MessageUpdateEvent) {
	e := u.AssistantMessageEvent
	switch e.Type {
	case host.StreamTextDelta, host.StreamThinkingDelta, host.StreamToolCallDelta:
		var h *heldDelta
		for _, d := range w.deltas {
			if mergeable(d.e, e) {
				h = d
				break
			}
		}
		if h == nil {
			h = &heldDelta{e: e}
			w.deltas = append(w.deltas, h)
		}
		h.delta.WriteString(e.Delta)
		est := int64(0)
		for _, d := range w.deltas {
			est += int64(80 + d.delta.Len())
		}
		if w.spent+int64(float64(est)*w.factor) <= w.opts.Floor+w.opts.Ratio*messageSize(u.Message) {
			w.flushDeltas(-1)
		}
		return
	case host.StreamTextEnd, host.StreamThinkingEnd, host.StreamToolCallEnd:
		w.flushDeltas(e.ContentIndex)
	}
	if w.err == nil {
		w.sendDelta(e)
	}
}

// flushDeltas sends the held deltas of block index, or of every block
// when index is -1.
func (w *Encoder) flushDeltas(index int) {
	kept := w.deltas[:0]
	for _, d := range w.deltas {
		if index >= 0 && d.e.ContentIndex != index {
			kept = append(kept, d)
			continue
		}
		if w.err == nil {
			e := d.e
			e.Delta = d.delta.String()
			w.sendDelta(e)
		}
	}
	clear(w.deltas[len(kept):])
	w.deltas = kept
}

func (w *Encoder) sendDelta(e host.AssistantMessageEvent) {
	b, err := marshalDelta(e)
	if err == nil {
		if f := float64(len(b)+1) / float64(80+len(e.Delta)); f > w.factor && e.Delta != "" {
			w.factor = f
		}
		w.spent += int64(len(b) + 1)
		err = w.send(b)
	}
	w.err = err
}

func (w *Encoder) encodeHeld() ([]byte, error) {
	u := *w.held
	u.AssistantMessageEvent.Delta = w.heldDelta.String()
	return host.MarshalEvent(u)
}

func (w *Encoder) write(b []byte, err error) error {
	if err == nil {
		err = w.send(b)
	}
	w.err = err
	return err
}

// deltaUpdate is a message_update of ModeDeltas: pi's event without the
// partial message, and without the message beside it.
type deltaUpdate struct {
	Type  string     `json:"type"`
	Event deltaEvent `json:"assistantMessageEvent"`
}

type deltaEvent struct {
	Type         string         `json:"type"`
	ContentIndex int            `json:"contentIndex"`
	Delta        *string        `json:"delta,omitempty"`
	Content      *string        `json:"content,omitempty"`
	ToolCall     *host.ToolCall `json:"toolCall,omitempty"`
}

func marshalDelta(e host.AssistantMessageEvent) ([]byte, error) {
	d := deltaEvent{Type: e.Type, ContentIndex: e.ContentIndex, ToolCall: e.ToolCall}
	switch e.Type {
	case host.StreamTextDelta, host.StreamThinkingDelta, host.StreamToolCallDelta:
		d.Delta = &e.Delta
	case host.StreamTextEnd, host.StreamThinkingEnd:
		d.Content = &e.Content
	}
	return host.MarshalJS(deltaUpdate{Type: "message_update", Event: d})
}
