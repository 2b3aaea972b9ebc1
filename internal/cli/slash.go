package cli

import (
	"context"
	"fmt"
	"strings"

	"github.com/wasmagent/wasmagent/host"
)

// A slashCommand is a chat line that starts with /NAME. A new one is a
// line in slashCommands (and, if it is long, a file of its own).
type slashCommand struct {
	name, args, help string
	run              func(c *chatSession, arg string)
}

var slashCommands []slashCommand

func init() {
	slashCommands = []slashCommand{
		{"follow", "TEXT", "queue TEXT as a follow-up: it runs when the agent would stop", slashFollow},
		{"new", "", "start a new session", slashNew},
		{"resume", "[ID]", "list this directory's sessions, or resume one (a unique id prefix is enough)", slashResume},
		{"name", "NAME", "name this session", slashName},
		{"session", "", "file, id, messages and tokens of this session", slashSession},
		{"reload", "", "re-read agent.toml and the plugins (the transcript stays)", slashReload},
		{"help", "", "list these commands", slashHelp},
		{"quit", "", "quit (also /exit, as in pi and Claude Code; or Ctrl-D)", slashQuit},
		{"exit", "", "", slashQuit},
	}
}

// slashQuit quits chat as Ctrl-D does: a run going is aborted.
func slashQuit(c *chatSession, _ string) { c.quit = true }

// unknownSlash says so when text is one word written as a command
// ("/clear", "/model") that is none of chat's: such a line was sent to the
// model as a prompt, a surprise for a user of another agent's commands.
// A line with more in it ("/etc/hosts: what is this?") is a prompt.
func unknownSlash(text string) (string, bool) {
	name, ok := strings.CutPrefix(text, "/")
	if _, _, known := findSlash(text); !ok || name == "" || known {
		return "", false
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
			return "", false
		}
	}
	if say, ok := otherSlash[strings.ToLower(name)]; ok {
		return fmt.Sprintf("(/%s is not a command here: %s. It was not sent; a prompt of more words is.)", name, say), true
	}
	var names []string
	for _, s := range slashCommands {
		names = append(names, s.name)
	}
	hint := didYouMean(name, names, func(s string) string { return "/" + s })
	return fmt.Sprintf("(/%s is not a command%s: /help lists them. It was not sent; a prompt of more words is.)", name, hint), true
}

// otherSlash answers the slash commands of pi and Claude Code typed by
// habit with what chat has instead.
var otherSlash = map[string]string{
	"clear":       "/new starts a new session (the old one stays, for /resume)",
	"reset":       "/new starts a new session (the old one stays, for /resume)",
	"model":       "the model is [model] name in agent.toml, or chat --model NAME; /reload re-reads agent.toml",
	"models":      "the model is [model] name in agent.toml, or chat --model NAME; /reload re-reads agent.toml",
	"thinking":    "the reasoning level is [agent] thinking in agent.toml, or chat --thinking LEVEL",
	"settings":    "the settings are agent.toml; /reload re-reads it",
	"config":      "the settings are agent.toml; /reload re-reads it",
	"login":       "the API key is read from the environment variable [model] api_key_env names (OPENAI_API_KEY by default)",
	"logout":      "the API key is read from the environment variable [model] api_key_env names (OPENAI_API_KEY by default)",
	"tools":       "wasmagent tools lists the tools and hooks agent.toml loads",
	"mcp":         "wasmagent mcp serves these tools to MCP clients; tools are [[tool]] plugins in agent.toml",
	"permissions": "which calls run is a policy hook's to decide ([[hook]] in agent.toml, docs/hooks.md); a hook that asks is answered here y, n or a",
	"hooks":       "hooks are [[hook]] plugins in agent.toml; wasmagent tools lists them",
	"export":      "wasmagent sessions export ID writes a session as Markdown (or --format jsonl); /session shows this one's id",
	"share":       "wasmagent sessions export ID writes a session as Markdown (or --format jsonl); /session shows this one's id",
	"fork":        "wasmagent chat --fork ID starts a new session from a copy of one",
	"tree":        "wasmagent sessions ls lists this directory's sessions; /resume ID opens one",
	"sessions":    "/resume lists this directory's sessions; /resume ID opens one",
	"compact":     "a session is not compacted here: /new starts a new one",
	"status":      "/session shows this session's file, id, messages and tokens",
	"cost":        "/session shows this session's tokens",
	"hotkeys":     "/help lists the commands and the keys",
	"copy":        "the answer is on the screen to copy; wasmagent sessions export ID writes it to a file",
}

// findSlash reads "/name arg" when name is a known command. Other lines
// that start with "/" (a path, say) are prompts.
func findSlash(text string) (slashCommand, string, bool) {
	if !strings.HasPrefix(text, "/") {
		return slashCommand{}, "", false
	}
	name, arg, _ := strings.Cut(text[1:], " ")
	for _, c := range slashCommands {
		if c.name == name {
			return c, strings.TrimSpace(arg), true
		}
	}
	return slashCommand{}, "", false
}

func slashFollow(c *chatSession, arg string) {
	if arg == "" {
		c.r.note("(/follow needs a TEXT)")
		return
	}
	c.a.FollowUp(&host.UserMessage{Content: host.Text(arg)})
	c.r.note("(follow-up queued)")
	if c.running == nil {
		c.start(func(ctx context.Context) error { return c.a.Continue(ctx) })
	}
}

func slashHelp(c *chatSession, _ string) {
	var b strings.Builder
	b.WriteString("A line typed while the agent works steers it. Commands:")
	for _, s := range slashCommands {
		if s.help == "" { // another name of the one above
			continue
		}
		fmt.Fprintf(&b, "\n  /%-14s %s", strings.TrimSpace(s.name+" "+s.args), s.help)
	}
	b.WriteString("\nWhen a hook asks about a call, the next line answers: y(es), n(o) or a(lways for that tool).")
	b.WriteString("\nCtrl-C aborts a run or clears the line; twice on an empty line, or Ctrl-D, quits.")
	c.r.note(b.String())
}
