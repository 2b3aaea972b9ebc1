package host

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// Question is what a before hook asks about a call (BeforeToolCallResult
// Ask): the call, the arguments it would run with, and the hook's text.
type Question struct {
	Hook     string
	ToolCall ToolCall // as the model sent it
	Args     json.RawMessage
	Text     string
}

// Approver answers hooks' questions: true approves the call, false
// declines it. Approve must honour ctx: it is cancelled when the run is
// aborted or the answer is overdue (Config.ApprovalTimeout). An error, like
// a late answer, declines the call. Calls of a parallel batch may ask at
// the same time.
type Approver interface {
	Approve(ctx context.Context, q Question) (bool, error)
}

// ApproverFunc adapts a function to [Approver].
type ApproverFunc func(ctx context.Context, q Question) (bool, error)

// Approve implements Approver.
func (f ApproverFunc) Approve(ctx context.Context, q Question) (bool, error) { return f(ctx, q) }

var _ Approver = ApproverFunc(nil)

// DefaultApprovalTimeout bounds an Approver's answer when
// Config.ApprovalTimeout is zero.
const DefaultApprovalTimeout = 5 * time.Minute

// errNoAnswer is the decline of a question nobody answered in time.
var errNoAnswer = errors.New("timed out")

// approve asks a and returns the decision and the answer's words for the
// report. Without an approver, the hook's OnAsk decides.
func approve(ctx context.Context, a Approver, timeout time.Duration, onAsk Fallback, q Question) (bool, string) {
	if a == nil {
		return onAsk.allows(), "on_ask " + string(orBlock(onAsk))
	}
	if timeout <= 0 {
		timeout = DefaultApprovalTimeout
	}
	actx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	ok, err := safely("approver", func() (bool, error) { return a.Approve(actx, q) })
	if err == nil && actx.Err() != nil {
		err = errNoAnswer
	}
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return false, "no answer: " + errNoAnswer.Error()
	case err != nil:
		return false, "no answer: " + err.Error()
	case ok:
		return true, "yes"
	}
	return false, "no"
}

func orBlock(f Fallback) Fallback {
	if f == "" {
		return FallbackBlock
	}
	return f
}

// declined is the reason a declined question gives the model.
func declined(q Question, answer string) string {
	return fmt.Sprintf("Tool execution was not approved (%s asked: %s; answer: %s)", q.Hook, q.Text, answer)
}
