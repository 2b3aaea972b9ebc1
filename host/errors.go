package host

import (
	"errors"
	"fmt"
)

// Errors of the loop's and the Agent's preconditions, with pi's texts.
var (
	ErrContinueEmpty         = errors.New("Cannot continue: no messages in context")
	ErrContinueFromAssistant = errors.New("Cannot continue from message role: assistant")
	ErrNoMessages            = errors.New("No messages to continue from")
	ErrPromptBusy            = errors.New("Agent is already processing a prompt. Use steer() or followUp() to queue messages, or wait for completion.")
	ErrContinueBusy          = errors.New("Agent is already processing. Wait for completion before continuing.")
	ErrBusy                  = errors.New("Agent is already processing.")
	// ErrNoModel is a run without a model: pi's text for its Agent's
	// placeholder model, whose API ("unknown") no provider serves.
	ErrNoModel = errors.New("No API provider registered for api: unknown")
)

// RunError reports a failure that escaped the loop (a sink, a callback or
// the model failed or panicked). The run still ended properly: Message is
// the synthetic error message delivered in its agent_end event.
type RunError struct {
	Err     error
	Message *AssistantMessage

	// endErr is the sink's failure on that agent_end, if it failed too:
	// the Agent's prompt fails with it, as pi's does (docs/loop.md 10.9).
	endErr error
}

func (e *RunError) Error() string { return "run failed: " + e.Err.Error() }

// Unwrap returns the cause.
func (e *RunError) Unwrap() error { return e.Err }

// safely calls f, turning a panic into an error that names what panicked.
func safely[T any](what string, f func() (T, error)) (v T, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("%s panicked: %v", what, p)
		}
	}()
	return f()
}
