package session

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/wasmagent/wasmagent/host"
)

// Texts pi-coding-agent wraps summaries in.
const (
	compactionPrefix = "The conversation history before this point was compacted into the following summary:\n\n<summary>\n"
	compactionSuffix = "\n</summary>"
	branchPrefix     = "The following is a summary of a branch that this conversation came back from:\n\n<summary>\n"
	branchSuffix     = "</summary>"
)

// ConvertToLLM is pi-coding-agent's convertToLlm: the messages pi's
// sessions add (custom, branchSummary, compactionSummary, bashExecution)
// reach the model as user messages, so a session pi compacted or branched
// continues with its context; other unknown roles are dropped. Sessions
// use it when AgentOptions.ConvertToLLM is nil.
func ConvertToLLM(_ context.Context, messages []host.Message) ([]host.Message, error) {
	out := make([]host.Message, 0, len(messages))
	for _, m := range messages {
		c, ok := m.(*host.CustomMessage)
		if !ok {
			out = append(out, host.DefaultConvertToLLM([]host.Message{m})...)
			continue
		}
		if u := customToUser(c); u != nil {
			out = append(out, u)
		}
	}
	return out, nil
}

func customToUser(c *host.CustomMessage) *host.UserMessage {
	var f struct {
		Content            host.Contents `json:"content"`
		Summary            string        `json:"summary"`
		Timestamp          int64         `json:"timestamp"`
		Command            string        `json:"command"`
		Output             string        `json:"output"`
		ExitCode           *int          `json:"exitCode"`
		Cancelled          bool          `json:"cancelled"`
		Truncated          bool          `json:"truncated"`
		FullOutputPath     string        `json:"fullOutputPath"`
		ExcludeFromContext bool          `json:"excludeFromContext"`
	}
	if json.Unmarshal(c.Raw, &f) != nil {
		return nil
	}
	u := &host.UserMessage{Timestamp: f.Timestamp}
	switch c.Role {
	case "custom":
		u.Content = f.Content
	case "branchSummary":
		u.Content = host.Text(branchPrefix + f.Summary + branchSuffix)
	case "compactionSummary":
		u.Content = host.Text(compactionPrefix + f.Summary + compactionSuffix)
	case "bashExecution":
		if f.ExcludeFromContext {
			return nil
		}
		var b strings.Builder
		fmt.Fprintf(&b, "Ran `%s`\n", f.Command)
		if f.Output != "" {
			fmt.Fprintf(&b, "```\n%s\n```", f.Output)
		} else {
			b.WriteString("(no output)")
		}
		if f.Cancelled {
			b.WriteString("\n\n(command cancelled)")
		} else if f.ExitCode != nil && *f.ExitCode != 0 {
			fmt.Fprintf(&b, "\n\nCommand exited with code %d", *f.ExitCode)
		}
		if f.Truncated && f.FullOutputPath != "" {
			fmt.Fprintf(&b, "\n\n[Output truncated. Full output: %s]", f.FullOutputPath)
		}
		u.Content = host.Text(b.String())
	default:
		return nil
	}
	return u
}
