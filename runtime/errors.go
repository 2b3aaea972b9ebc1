package runtime

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// ErrPlugin is the cause of a [CallError] for a call the plugin itself
// failed (an Extism error: it set an error message and returned non-zero).
// The plugin's message is CallError.Message.
var ErrPlugin = errors.New("the plugin reported an error")

// MaxMessageBytes bounds a plugin's error message (and the stderr tail
// shown for a crash) in a [CallError].
const MaxMessageBytes = 4096

// CallError is a failed call of a plugin export. Unwrap gives the cause:
// [ErrPlugin]; context.DeadlineExceeded for a call that ran out of time;
// context.Canceled for an aborted one; or what went wrong in the host or in
// the guest (a trap, a bad offset, an output over its limit).
type CallError struct {
	Plugin  string // the plugin's name
	Export  string // the export called
	Err     error  // the cause
	Message string // the plugin's own message or its stderr, cut to MaxMessageBytes
}

func (e *CallError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "plugin %s: %s: ", e.Plugin, e.Export)
	switch {
	case errors.Is(e.Err, ErrPlugin):
		b.WriteString(e.Message)
	case e.Message != "":
		fmt.Fprintf(&b, "%v; stderr: %s", e.Err, e.Message)
	default:
		fmt.Fprint(&b, e.Err)
	}
	return b.String()
}

func (e *CallError) Unwrap() error { return e.Err }

// truncate cuts s to at most n bytes on a rune boundary, saying so.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + fmt.Sprintf("… (%d bytes cut)", len(s)-cut)
}
