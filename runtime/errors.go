package runtime

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"
)

// The causes of a [CallError], for errors.Is. Each call error matches
// exactly one of them (a call stopped by time also matches
// context.DeadlineExceeded, an aborted one context.Canceled), except the
// caller's own mistake of calling an export the module does not have.
var (
	// ErrPlugin: the plugin itself reported an error (an Extism error: it
	// set an error message and returned non-zero). The plugin's message is
	// CallError.Message.
	ErrPlugin = errors.New("the plugin reported an error")
	// ErrTrap: the plugin crashed (a Wasm trap, a guest runtime's exit or
	// panic) or broke the Extism ABI (a bad offset, a bad block, a wrong
	// export signature).
	ErrTrap = errors.New("the plugin failed")
	// ErrTimeout: the call outlasted the plugin's own timeout (its grant).
	ErrTimeout = errors.New("the plugin's timeout passed")
	// ErrDeadline: the caller's context deadline passed before the call
	// ended, earlier than the plugin's own timeout.
	ErrDeadline = errors.New("the caller's deadline passed")
	// ErrAborted: the caller cancelled the call.
	ErrAborted = errors.New("the call was aborted")
	// ErrCap: the call reached one of its per-call caps; the error is a
	// [*CapError] naming it.
	ErrCap = errors.New("a limit of the plugin's grants was reached")
	// ErrCallDepth: the guest's calls nested deeper than the host allows
	// (runaway recursion): wazero's stack overflow, or a limit of the
	// instrumentation, which reports it as a fault whose error matches
	// ErrCallDepth (st.check(&fault{because(msg, ErrCallDepth)})).
	ErrCallDepth = errors.New("the plugin's calls nested too deep")
	// ErrHost: the host failed (a bug in wasmagent or wazero, recovered
	// from a panic); the plugin may be fine.
	ErrHost = errors.New("the host failed")
	// ErrCompileCost: a module's code would cost wazero's compiler more
	// than the host allows; it is refused at load with a
	// [*CompileCostError] (compilecost.go).
	ErrCompileCost = errors.New("the module's code is too costly to compile")
)

// MaxMessageBytes bounds a plugin's error message (and the stderr tail
// shown for a crash) in a [CallError].
const MaxMessageBytes = 4096

// CallError is a failed call of a plugin export. Unwrap gives the cause,
// which matches one of the Err* variables of this package (see above).
type CallError struct {
	Plugin  string // the plugin's name
	Export  string // the export called
	Err     error  // the cause
	Message string // the plugin's own message or its stderr, cut to MaxMessageBytes
	// Refused is the first operation of the call the host refused at a
	// cap without ending the call (a write over the disk caps, which the
	// guest saw fail with EDQUOT): likely why the plugin failed.
	Refused *CapError
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
	if e.Refused != nil {
		fmt.Fprintf(&b, " (the host refused an operation of this call: %v)", e.Refused)
	}
	return b.String()
}

func (e *CallError) Unwrap() error { return e.Err }

// CapError is a per-call cap that a call reached. It matches [ErrCap].
type CapError struct {
	Cap    string // the Grants field that sets it, e.g. "MaxHostAllocBytes"
	Limit  int64  // its value
	Detail string // what the plugin did
}

func (e *CapError) Error() string {
	unit := ""
	switch {
	case strings.HasSuffix(e.Cap, "Bytes"):
		unit = " bytes"
	case strings.HasSuffix(e.Cap, "Pages"):
		unit = " pages"
	case strings.HasSuffix(e.Cap, "Files"):
		unit = " files, directories and links"
	}
	key := ""
	if k, ok := grantKeys[e.Cap]; ok {
		key = "; in agent.toml, the plugin's grants." + k
	}
	return fmt.Sprintf("%s: over the plugin's limit of %d%s (Grants.%s%s)", e.Detail, e.Limit, unit, e.Cap, key)
}

// grantKeys are the agent.toml keys of the Grants fields that are caps
// (host/config's Grants; config's TestCapKeysAreGrantKeys checks them).
var grantKeys = map[string]string{
	"MemoryPages": "memory", "MaxInputBytes": "max_input", "MaxOutputBytes": "max_output",
	"MaxHTTPResponseBytes": "max_http_response", "MaxVarBytes": "max_vars", "MaxHostAllocBytes": "max_host_alloc",
	"MaxUpdates": "max_updates", "MaxUpdateBytes": "max_update_bytes", "MaxLogBytes": "max_log",
	"MaxVarWriteBytes": "max_var_writes", "MaxHTTPRequests": "max_http_requests",
	"MaxDiskBytes": "max_disk", "MaxNewFiles": "max_new_files",
}

// GrantKey is the agent.toml key (under a plugin's grants) of the Grants
// field cap names, or "" if it has none.
func GrantKey(cap string) string { return grantKeys[cap] }

func (e *CapError) Is(target error) bool { return target == ErrCap }

// causeError is an error with its own text that matches several targets.
type causeError struct {
	msg     string
	targets []error
}

func (e *causeError) Error() string   { return e.msg }
func (e *causeError) Unwrap() []error { return e.targets }

func because(msg string, targets ...error) error { return &causeError{msg, targets} }

// errGrantTimeout is the cause of a call's context when the plugin's own
// timeout ends it.
var errGrantTimeout = errors.New("the plugin's timeout")

// withTimeout bounds ctx by a plugin's timeout, marked so that stopped can
// tell it from the caller's own deadline.
func withTimeout(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	return context.WithTimeoutCause(ctx, d, errGrantTimeout)
}

// stopped says why ctx (made by withTimeout with timeout d) ended, or nil
// if it has not.
func stopped(ctx context.Context, d time.Duration) error {
	switch err := ctx.Err(); {
	case err == nil:
		return nil
	case errors.Is(context.Cause(ctx), errGrantTimeout):
		return because(fmt.Sprintf("did not finish within its timeout of %v", d), ErrTimeout, context.DeadlineExceeded)
	case errors.Is(err, context.DeadlineExceeded):
		msg := fmt.Sprintf("the caller's deadline passed before the call ended (earlier than the plugin's own timeout of %v)", d)
		return because(msg, ErrDeadline, context.DeadlineExceeded)
	default:
		return because("aborted by the caller", ErrAborted, context.Canceled)
	}
}

// callerStopped says why a caller's ctx ended (no plugin timeout applies
// yet: the call was waiting for its turn).
func callerStopped(ctx context.Context) error {
	switch err := ctx.Err(); {
	case err == nil:
		return nil
	case errors.Is(err, context.DeadlineExceeded):
		return because("the caller's deadline passed", ErrDeadline, context.DeadlineExceeded)
	default:
		return because("aborted by the caller", ErrAborted, context.Canceled)
	}
}

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
