package cli

import (
	"fmt"

	"github.com/wasmagent/wasmagent/host"
	"github.com/wasmagent/wasmagent/host/config"
	"github.com/wasmagent/wasmagent/internal/words"
)

// turnCapNote is, for a run that [agent] max_turns ended before the model
// had finished (its last message a tool result the model never read), the
// words that say so and what to do; else "". Without it such a run ended
// after its tool lines as if the model had nothing more to say.
func turnCapNote(e host.AgentEndEvent, f *config.File) string {
	max := f.Agent.MaxTurns
	if max <= 0 || len(e.Messages) == 0 {
		return ""
	}
	if _, ok := e.Messages[len(e.Messages)-1].(*host.ToolResultMessage); !ok || config.TurnsOf(e.Messages) < max {
		return ""
	}
	return fmt.Sprintf("(stopped after %s: [agent] max_turns = %d in %s; the model had not answered yet: raise max_turns, or go on with another prompt in the same session, as run -c does)",
		words.Count(max, "turn"), max, f.Path)
}
