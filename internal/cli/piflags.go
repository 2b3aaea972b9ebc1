package cli

import (
	"fmt"
	"path/filepath"
	"slices"

	"github.com/wasmagent/wasmagent/host/config"
)

// pi's flags that run, chat and rpc take in pi's shape (pi-coding-agent
// 0.73.1's args.ts): --model and --thinking for this command instead of
// agent.toml's, and (with the session flags) -c for --continue and
// --session-dir. What they set, they set on the configuration as read,
// before it is checked against the model and wired: a /reload keeps them.

// thinkingLevels are pi's, and [agent] thinking's.
var thinkingLevels = []string{"off", "minimal", "low", "medium", "high", "xhigh"}

// overrides are the values the command line gives over agent.toml's.
type overrides struct {
	model      string // [model] name
	thinking   string // [agent] thinking
	sessionDir string // [sessions] dir
}

// addModelFlags adds --model and --thinking to a command that runs the
// model.
func addModelFlags(f *flags) *overrides {
	o := &overrides{}
	f.StringVar(&o.model, "model", "", "the model's `NAME` on the server, instead of [model] name (as pi's --model)")
	f.StringVar(&o.thinking, "thinking", "", "the reasoning `LEVEL`: off, minimal, low, medium, high or xhigh, instead of [agent] thinking (as pi's --thinking)")
	return o
}

// check says what is wrong with the values given, as a usage error.
func (o *overrides) check() error {
	if o.thinking != "" && !slices.Contains(thinkingLevels, o.thinking) {
		return fmt.Errorf("--thinking %q: want off, minimal, low, medium, high or xhigh", o.thinking)
	}
	return nil
}

// apply sets the values given on f, the configuration read; an error
// names the flag and the file.
func (o *overrides) apply(f *config.File) error {
	if o == nil {
		return nil
	}
	if o.model != "" {
		if f.Model.Provider != "openai" {
			return fmt.Errorf("wasmagent: --model %q: the %q provider of %s takes no model name (--model is for provider = \"openai\")", o.model, f.Model.Provider, f.Path)
		}
		f.Model.Name = o.model
	}
	if o.thinking != "" {
		f.Agent.Thinking = o.thinking
	}
	if o.sessionDir != "" {
		dir, err := filepath.Abs(o.sessionDir)
		if err != nil {
			return fmt.Errorf("wasmagent: --session-dir %q: %v", o.sessionDir, err)
		}
		f.Sessions.Dir = dir
	}
	return nil
}
