package wasmtool

import (
	"github.com/wasmagent/wasmagent/internal/safetext"
)

// MaxErrorRunes bounds the message of every error a plugin's output can
// cause (a bad result, update, hook answer or description): such a
// message quotes what is wrong (an unknown field, a content type, a tool
// name), which the plugin chose and may have made megabytes long, and it
// goes to the model, the terminal, the session and the audit log. Past
// the bound the message keeps its head and its tail (safetext.Clip).
const MaxErrorRunes = 4096

// clippedError is an error whose message is cut; it unwraps to the
// whole error, so errors.Is and errors.As see through it.
type clippedError struct {
	msg string
	err error
}

func (e *clippedError) Error() string { return e.msg }
func (e *clippedError) Unwrap() error { return e.err }

// clipErr bounds err's message to MaxErrorRunes.
func clipErr(err error) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	if len(msg) <= MaxErrorRunes {
		return err
	}
	if cut := safetext.Clip(msg, MaxErrorRunes); cut != msg {
		return &clippedError{cut, err}
	}
	return err
}
