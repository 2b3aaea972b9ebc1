package cli

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// A command is a line of the command table: a name, the synopsis its usage
// shows, what it does in a few words, and either a function or a group of
// subcommands.
type command struct {
	name     string
	synopsis string // after "wasmagent "
	summary  string
	run      func(ctx context.Context, args []string, env Env) int
	group    *group
}

// A group is a table of commands under one name ("plugin", "config", or
// the root).
type group struct {
	path     string // "wasmagent", "wasmagent plugin"
	intro    string // printed above the command list
	outro    string // printed below it
	commands []command
	// bare is the command run when none is named, or only flags are
	// ("wasmagent sessions" lists, as "git remote" does); "" makes that a
	// usage error.
	bare string
	// aka answers the words other tools use for a command (Codex's exec,
	// extism's and git's habits) with the command line meant here, after
	// "wasmagent ".
	aka map[string]string
}

// rootGroup is the command table. A new command is a file with its
// function and a line here.
var rootGroup = &group{
	path:  "wasmagent",
	intro: "wasmagent runs an LLM agent whose tools and hooks are sandboxed WebAssembly plugins.\n",
	outro: `The configuration is agent.toml in the current directory unless --config
(or WASMAGENT_CONFIG) says otherwise. Run "wasmagent help COMMAND" or
"wasmagent COMMAND --help" for a command's flags; "wasmagent --version"
for the version.

Exit status: 0 on a normal end, 1 when the model or a tool failed, 2 for
usage and configuration errors, 130 when interrupted.
`,
	commands: []command{
		{name: "run", synopsis: "run [flags] PROMPT|-", summary: "one prompt, to the end (PROMPT from stdin when - or absent)", run: runCmd},
		{name: "chat", synopsis: "chat [flags]", summary: "interactive session", run: chatCmd},
		{name: "tools", synopsis: "tools [flags]", summary: "the tools and hooks a configuration loads", run: toolsCmd},
		{name: "sessions", synopsis: "sessions ls|show|export|rm ...", summary: "stored conversations", group: sessionsGroup},
		{name: "rpc", synopsis: "rpc [flags]", summary: "pi's RPC protocol on stdin/stdout", run: rpcCmd},
		{name: "serve", synopsis: "serve [flags]", summary: "sessions for many users over HTTP, with live events (SSE), tokens and quotas", run: serveCmd},
		{name: "mcp", synopsis: "mcp [flags]", summary: "serve the tools, with their hooks and grants, to MCP clients (stdio, or HTTP)", run: mcpCmd},
		{name: "plugin", synopsis: "plugin inspect|call ...", summary: "look at or call one plugin", group: pluginGroup},
		{name: "config", synopsis: "config validate [FILE]", summary: "check a configuration", group: configGroup},
		{name: "version", synopsis: "version", summary: "the version and the plugin ABI it speaks", run: versionCmd},
	},
	aka: map[string]string{
		"exec": "run PROMPT", "prompt": "run PROMPT", "ask": "run PROMPT", // codex exec PROMPT
		"resume": "chat --continue", "continue": "chat --continue", // codex resume, claude --resume
		"repl": "chat", "interactive": "chat",
		"check": "config validate", "lint": "config validate", "verify": "config validate",
		"invoke": "plugin call", "info": "plugin inspect", "describe": "plugin inspect",
		"history": "sessions ls",
	},
}

var pluginGroup = &group{
	path: "wasmagent plugin",
	aka: map[string]string{
		"run": "plugin call", "exec": "plugin call", "invoke": "plugin call", "test": "plugin call",
		"info": "plugin inspect", "describe": "plugin inspect", "show": "plugin inspect",
	},
	commands: []command{
		{name: "inspect", synopsis: "plugin inspect FILE.wasm", summary: "what a plugin declares, exports and imports", run: inspectCmd},
		{name: "call", synopsis: "plugin call [flags] FILE.wasm TOOL ['ARGS_JSON']", summary: "run one tool once, or dry-run a hook (--hook)", run: callCmd},
	},
}

var sessionsGroup = &group{
	path:  "wasmagent sessions",
	outro: "ID may be any unique prefix of a session id. \"wasmagent sessions\" alone is ls.\n",
	bare:  "ls",
	aka: map[string]string{
		"list": "sessions ls", "delete": "sessions rm", "remove": "sessions rm",
		"cat": "sessions show", "view": "sessions show", "resume": "chat --session ID", "open": "chat --session ID",
	},
	commands: []command{
		{name: "ls", synopsis: "sessions ls [--config FILE]", summary: "this directory's sessions, newest first", run: sessionsSub("ls", "sessions ls [--config FILE]")},
		{name: "show", synopsis: "sessions show [--config FILE] ID|PATH", summary: "the transcript, in Markdown", run: sessionsSub("show", "sessions show [--config FILE] ID|PATH")},
		{name: "export", synopsis: "sessions export [--config FILE] [--format md|jsonl] ID|PATH", summary: "Markdown, or the session file as it is", run: sessionsSub("export", "sessions export [--config FILE] [--format md|jsonl] ID|PATH")},
		{name: "rm", synopsis: "sessions rm [--config FILE] ID|PATH", summary: "delete a session", run: sessionsSub("rm", "sessions rm [--config FILE] ID|PATH")},
	},
}

var configGroup = &group{
	path: "wasmagent config",
	aka:  map[string]string{"check": "config validate", "lint": "config validate", "verify": "config validate", "test": "config validate"},
	commands: []command{
		{name: "validate", synopsis: "config validate [FILE]", summary: "check a configuration", run: validateCmd},
	},
}

// dispatch runs the command args name in g. Help (-h, --help, help
// [COMMAND]) goes to stdout with exit 0; a missing or unknown command is a
// usage error on stderr.
func dispatch(ctx context.Context, g *group, args []string, env Env) int {
	if len(args) == 0 && g.bare != "" {
		args = []string{g.bare}
	}
	if len(args) == 0 {
		if g != rootGroup {
			names := make([]string, len(g.commands))
			for i, c := range g.commands {
				names[i] = c.name
			}
			fmt.Fprintf(env.Stderr, "%s: which command? %s\n\n", g.path, strings.Join(names, " or "))
		}
		g.usage(env.Stderr)
		return ExitUsage
	}
	name, rest := args[0], args[1:]
	switch name {
	case "-h", "-help", "--help":
		g.usage(env.Stdout)
		return ExitOK
	case "help":
		if len(rest) == 0 {
			g.usage(env.Stdout)
			return ExitOK
		}
		// "help plugin call" is "plugin call --help".
		return dispatch(ctx, g, append(append([]string{}, rest...), "--help"), env)
	case "-version", "--version", "-v", "-V":
		if g == rootGroup {
			return versionCmd(ctx, rest, env)
		}
	case "-p", "--print", "-print":
		if g == rootGroup {
			// pi's and claude's print mode: "wasmagent -p PROMPT" is run.
			return runCmd(ctx, rest, env)
		}
	}
	if strings.HasPrefix(name, "-") && g.bare != "" {
		// "wasmagent sessions --config F" is "sessions ls --config F".
		name, rest = g.bare, args
	}
	for _, c := range g.commands {
		if c.name != name {
			continue
		}
		if c.group != nil {
			return dispatch(ctx, c.group, rest, env)
		}
		return c.run(ctx, rest, env)
	}
	return g.unknown(name, env)
}

// unknown reports a name that is not a command of g: the command it most
// likely meant, if one is close, else the list. A flag before the command
// ("wasmagent --config x.toml run") is said to belong after it.
func (g *group) unknown(name string, env Env) int {
	if strings.HasPrefix(name, "-") && len(name) > 1 {
		bare, _, _ := strings.Cut(strings.TrimLeft(name, "-"), "=")
		if advice := agentFlagAdvice(bare); advice != "" && g == rootGroup && bare != "c" {
			// (A flag of pi or Claude Code: after the command it is
			// unknown too.)
			fmt.Fprintf(env.Stderr, "%s: unknown flag %s%s\n", g.path, name, advice)
		} else {
			fmt.Fprintf(env.Stderr, "%s: unknown flag %s: flags go after the command (%s COMMAND [flags])\n", g.path, name, g.path)
		}
		fmt.Fprintf(env.Stderr, "Run \"%s --help\" for the commands.\n", g.path)
		return ExitUsage
	}
	if g == rootGroup && promptLike(name) {
		// pi and claude take a prompt as their first argument.
		example := "'PROMPT'"
		if len(name) <= 60 {
			example = shellQuote(printable(name))
		}
		fmt.Fprintf(env.Stderr, "%s: unknown command %q: a prompt goes to run, which prints the answer (wasmagent run %s), or type it in wasmagent chat\n", g.path, printable(clip(name, 60)), example)
		return ExitUsage
	}
	if meant := g.meant(name); meant != "" {
		fmt.Fprintf(env.Stderr, "%s: unknown command %q (did you mean wasmagent %s?)\nRun \"%s --help\" for the commands.\n", g.path, name, meant, g.path)
		return ExitUsage
	}
	names := make([]string, len(g.commands))
	for i, c := range g.commands {
		names[i] = c.name
	}
	if hint := didYouMean(name, names, strconv.Quote); hint != "" {
		fmt.Fprintf(env.Stderr, "%s: unknown command %q%s\nRun \"%s --help\" for the commands.\n", g.path, name, hint, g.path)
		return ExitUsage
	}
	fmt.Fprintf(env.Stderr, "%s: unknown command %q\n\n", g.path, name)
	g.usage(env.Stderr)
	return ExitUsage
}

// meant is the command line a name that is no command of g stands for:
// a command of a group below g by its own name ("wasmagent validate" is
// config validate), or a word another tool uses (g.aka); "" if none.
func (g *group) meant(name string) string {
	if say, ok := g.aka[strings.ToLower(name)]; ok {
		return say
	}
	var found []string
	var walk func(g *group, prefix string)
	walk = func(g *group, prefix string) {
		for _, c := range g.commands {
			if c.group != nil {
				walk(c.group, prefix+c.name+" ")
			} else if c.name == name && prefix != "" {
				found = append(found, prefix+c.name)
			}
		}
	}
	walk(g, "")
	if len(found) == 1 {
		return found[0]
	}
	return ""
}

func (g *group) usage(w io.Writer) {
	var b strings.Builder
	if g.intro != "" {
		b.WriteString(g.intro + "\n")
	}
	b.WriteString("Usage:\n")
	width := 0
	for _, c := range g.commands {
		width = max(width, len(c.synopsis))
	}
	for _, c := range g.commands {
		fmt.Fprintf(&b, "  wasmagent %-*s  %s\n", width, c.synopsis, c.summary)
	}
	if g.outro != "" {
		b.WriteString("\n" + g.outro)
	}
	io.WriteString(w, b.String())
}
