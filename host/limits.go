package host

import (
	"fmt"
	"strconv"
	"sync"
)

// Defaults of the caps on one assistant message's tool calls
// (Config.MaxToolCalls, Config.MaxArgumentBytes).
const (
	DefaultMaxToolCalls     = 128
	DefaultMaxArgumentBytes = 16 << 20
)

// callLimits counts the calls of the message being prepared. prepare sees
// the calls of a message once each, in order, so the count is each call's
// place in its message.
type callLimits struct {
	mu  sync.Mutex
	msg *AssistantMessage
	n   int
}

func (l *callLimits) next(msg *AssistantMessage) int {
	if msg == nil {
		return 1 // a call outside any message is the first of its own
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.msg != msg {
		l.msg, l.n = msg, 0
	}
	l.n++
	return l.n
}

// capOf is a configured cap: 0 means def, negative means none.
func capOf(v, def int) int {
	switch {
	case v == 0:
		return def
	case v < 0:
		return -1
	}
	return v
}

// overLimit is the error text for a call the host will not run because of
// its place in the message (Config.MaxToolCalls), or "".
func (r *run) overLimit(msg *AssistantMessage) string {
	nth := r.limits.next(msg)
	if max := capOf(r.cfg.MaxToolCalls, DefaultMaxToolCalls); max >= 0 && nth > max {
		run := "run"
		if max == 1 {
			run = "runs"
		}
		return fmt.Sprintf("Tool call not run: it is call %d of this message, and at most %s of one message %s. Send it again in a later message.", nth, count(max, "call"), run)
	}
	return ""
}

// argumentsTooLarge is the error text for arguments of size n over the cap
// limit (0: DefaultMaxArgumentBytes; negative: none), or "". what says
// which arguments ("are" as sent, or "are, once validated,").
func argumentsTooLarge(limit int, tool, what string, n int) string {
	if max := capOf(limit, DefaultMaxArgumentBytes); max >= 0 && n > max {
		return fmt.Sprintf("Tool call not run: the arguments for %s %s %s, and the host accepts at most %s of arguments per call.", tool, what, count(n, "byte"), count(max, "byte"))
	}
	return ""
}

// count is n and noun, in the plural unless n is 1, with thousands
// separators: the words of internal/words.Count, which host may not
// import (it imports the standard library only; TestToolCallCapsInWords
// in host/config compares the two).
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	s := strconv.Itoa(max(n, 0))
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s + " " + noun + "s"
}
