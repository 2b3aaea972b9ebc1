package cli

import (
	"fmt"
	"strings"
	"time"

	"github.com/wasmagent/wasmagent/host"
)

// summary counts what a run did, for the line printed at its end.
type summary struct {
	start     time.Time
	took      time.Duration
	turns     int
	toolCalls int
	usage     host.Usage
}

func (s *summary) event(e host.Event) {
	switch e := e.(type) {
	case host.AgentStartEvent:
		*s = summary{start: time.Now()}
	case host.TurnEndEvent:
		s.turns++
	case host.ToolExecutionEndEvent:
		s.toolCalls++
	case host.MessageEndEvent:
		if m, ok := e.Message.(*host.AssistantMessage); ok {
			s.usage.Input += m.Usage.Input
			s.usage.Output += m.Usage.Output
			s.usage.CacheRead += m.Usage.CacheRead
			s.usage.CacheWrite += m.Usage.CacheWrite
		}
	case host.AgentEndEvent:
		s.took = time.Since(s.start)
	}
}

// String is "2 turns · 1 tool call · tokens 1,234 in (1,000 cached) / 56
// out · 4.2s". Tokens in count every prompt token: pi's usage counts the
// cached ones (cacheRead, cacheWrite) apart from input.
func (s *summary) String() string {
	tokens := fmt.Sprintf("tokens %s in", count(s.usage.Input+s.usage.CacheRead+s.usage.CacheWrite))
	if s.usage.CacheRead > 0 {
		tokens += fmt.Sprintf(" (%s cached)", count(s.usage.CacheRead))
	}
	tokens += fmt.Sprintf(" / %s out", count(s.usage.Output))
	return strings.Join([]string{plural(s.turns, "turn"), plural(s.toolCalls, "tool call"), tokens, seconds(s.took)}, " · ")
}

// count writes n with thousands separators: 1234567 is "1,234,567".
func count(n int) string {
	s := fmt.Sprint(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	if neg {
		s = "-" + s
	}
	return s
}
