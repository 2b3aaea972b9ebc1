package rpc

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/wasmagent/wasmagent/host"
)

// uiRequest is pi's extension_ui_request of method "confirm".
type uiRequest struct {
	Type    string `json:"type"`
	ID      string `json:"id"`
	Method  string `json:"method"`
	Title   string `json:"title"`
	Message string `json:"message"`
	Timeout int64  `json:"timeout,omitempty"` // ms until the question is declined
}

// errDismissed is the decline of a question the client cancelled.
var errDismissed = errors.New("cancelled by the client")

// approver is the [host.Approver] of a served session: each hook's
// question goes to the client as an extension_ui_request "confirm" and
// waits for the extension_ui_response with its id, or for its context (the
// run aborted, the approval timeout). Questions of a parallel batch are
// pending at the same time, each under its own id.
type approver struct {
	write func([]byte) error

	mu      sync.Mutex
	pending map[string]chan Command
}

var _ host.Approver = (*approver)(nil)

// Approve implements host.Approver.
func (a *approver) Approve(ctx context.Context, q host.Question) (bool, error) {
	id := newUIID()
	answer := make(chan Command, 1)
	a.mu.Lock()
	if a.pending == nil {
		a.pending = map[string]chan Command{}
	}
	a.pending[id] = answer
	a.mu.Unlock()
	defer func() {
		a.mu.Lock()
		delete(a.pending, id)
		a.mu.Unlock()
	}()
	// What the dialog shows comes from plugins and the model: it is
	// cleaned and clipped (displayText), so that it reads as it is.
	req := uiRequest{Type: "extension_ui_request", ID: id, Method: "confirm",
		Title:   displayText(q.Hook, maxNameRunes) + " asks: " + displayText(q.Text, maxQuestionRunes),
		Message: displayText(q.ToolCall.Name, maxNameRunes) + " " + displayText(string(q.Args), maxArgsRunes)}
	if deadline, ok := ctx.Deadline(); ok {
		req.Timeout = max(time.Until(deadline).Milliseconds(), 1)
	}
	line, err := host.MarshalJS(req)
	if err != nil {
		return false, err
	}
	if err := a.write(line); err != nil {
		return false, err
	}
	select {
	case c := <-answer:
		if c.Cancelled != nil && *c.Cancelled {
			return false, errDismissed
		}
		return *c.Confirmed, nil
	case <-ctx.Done():
		return false, ctx.Err()
	}
}

// answer hands an extension_ui_response to the question it answers. An
// error says why it answers none; the question, if any, stays pending.
func (a *approver) answer(c Command) error {
	var id string
	if len(c.ID) == 0 || json.Unmarshal(c.ID, &id) != nil {
		return errors.New(`extension_ui_response needs the "id" of the extension_ui_request it answers (a string)`)
	}
	cancelled := c.Cancelled != nil && *c.Cancelled
	if !cancelled && c.Confirmed == nil {
		return fmt.Errorf(`extension_ui_response %q: a confirm is answered with "confirmed": true or false, or "cancelled": true`, id)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	ch, ok := a.pending[id]
	if !ok {
		return fmt.Errorf("extension_ui_response %q: no question is waiting for that id (never asked, answered already, or timed out)", id)
	}
	delete(a.pending, id)
	ch <- c // buffered, and only one answer is ever sent
	return nil
}

// newUIID returns a random UUID (version 4), as pi's request ids.
func newUIID() string {
	var b [16]byte
	rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}
