package cli

import (
	"fmt"
	"strings"
	"time"

	"github.com/wasmagent/wasmagent/host"
	"github.com/wasmagent/wasmagent/internal/words"
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
// A run whose model reported no usage at all (a server that sends none,
// the scripted model) says so: "tokens 0 in / 0 out" read as a run that
// cost nothing.
func (s *summary) String() string {
	tokens := "no token counts from the model"
	if u := s.usage; u.Input+u.Output+u.CacheRead+u.CacheWrite > 0 {
		tokens = fmt.Sprintf("tokens %s in", words.Number(u.Input+u.CacheRead+u.CacheWrite))
		if u.CacheRead > 0 {
			tokens += fmt.Sprintf(" (%s cached)", words.Number(u.CacheRead))
		}
		tokens += fmt.Sprintf(" / %s out", words.Number(u.Output))
	}
	return strings.Join([]string{words.Count(s.turns, "turn"), words.Count(s.toolCalls, "tool call"), tokens, seconds(s.took)}, " · ")
}
