// Package cli is the wasmagent command: its commands, flags, output and
// exit codes. cmd/wasmagent only connects it to the process.
package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"

	"github.com/wasmagent/wasmagent/host/config"
)

// Exit codes.
const (
	ExitOK      = 0   // the run ended normally
	ExitFailed  = 1   // the model (or a called tool) failed
	ExitUsage   = 2   // bad flags, or a configuration that does not load
	ExitAborted = 130 // interrupted (Ctrl-C)
)

// Env is what the command sees of its process.
type Env struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	// Interrupt receives a value for each Ctrl-C (SIGINT).
	Interrupt <-chan struct{}
	// Terminal says stderr is a terminal (spinner, redrawn lines).
	Terminal bool
}

// Main runs the command line args (without the program name) and returns
// the exit code.
func Main(ctx context.Context, args []string, env Env) int {
	if len(args) == 0 {
		fmt.Fprint(env.Stderr, usage)
		return ExitUsage
	}
	cmd, rest := args[0], args[1:]
	switch cmd {
	case "run":
		return runCmd(ctx, rest, env)
	case "chat":
		return chatCmd(ctx, rest, env)
	case "tools":
		return toolsCmd(ctx, rest, env)
	case "mcp":
		return mcpCmd(ctx, rest, env)
	case "plugin":
		if len(rest) > 0 && rest[0] == "inspect" {
			return inspectCmd(ctx, rest[1:], env)
		}
		if len(rest) > 0 && rest[0] == "call" {
			return callCmd(ctx, rest[1:], env)
		}
		fmt.Fprint(env.Stderr, pluginUsage)
		return ExitUsage
	case "config":
		if len(rest) > 0 && rest[0] == "validate" {
			return validateCmd(ctx, rest[1:], env)
		}
		fmt.Fprint(env.Stderr, "usage: wasmagent config validate [FILE]\n")
		return ExitUsage
	case "help", "-h", "-help", "--help":
		fmt.Fprint(env.Stdout, usage)
		return ExitOK
	}
	fmt.Fprintf(env.Stderr, "wasmagent: unknown command %q\n\n%s", cmd, usage)
	return ExitUsage
}

const usage = `wasmagent runs an LLM agent whose tools and hooks are sandboxed WebAssembly plugins.

Usage:
  wasmagent run [--config FILE] [--json] PROMPT   one prompt, to the end
  wasmagent chat [--config FILE]                  interactive session
  wasmagent tools [--config FILE]                 the tools and hooks a configuration loads
  wasmagent mcp [--config FILE] [--http ADDR]     serve the tools to MCP clients (stdio, or HTTP)
  wasmagent plugin inspect FILE.wasm              what a plugin declares and imports
  wasmagent plugin call FILE.wasm TOOL 'ARGS'     run one tool once
  wasmagent config validate [FILE]                check a configuration

The configuration is agent.toml in the current directory unless --config
says otherwise. Run "wasmagent COMMAND --help" for a command's flags.

Exit status: 0 on a normal end, 1 when the model or a tool failed, 2 for
usage and configuration errors, 130 when interrupted.
`

const pluginUsage = `usage:
  wasmagent plugin inspect FILE.wasm
  wasmagent plugin call [grant flags] FILE.wasm TOOL 'ARGS_JSON'
`

// newFlags makes a flag set that prints its usage and examples on -h.
func newFlags(name, synopsis, examples string, env Env) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(env.Stderr)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: wasmagent %s\n\nFlags:\n", synopsis)
		fs.PrintDefaults()
		if examples != "" {
			fmt.Fprintf(fs.Output(), "\nExamples:\n%s", examples)
		}
	}
	return fs
}

// parse parses flags; -h gives exit 0 (usage shown), a bad flag exit 2.
func parse(fs *flag.FlagSet, args []string) (code int, ok bool) {
	// Flags may come after positional arguments too ("run 'prompt' --json").
	var pos []string
	for len(args) > 0 {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return ExitOK, false
			}
			return ExitUsage, false
		}
		args = fs.Args()
		if len(args) > 0 {
			pos = append(pos, args[0])
			args = args[1:]
		}
	}
	fs.Parse(append([]string{"--"}, pos...))
	return 0, true
}

// loadConfig reads the configuration and wires it, reporting problems on
// stderr. Plugin logs go to stderr at the configured level.
func loadConfig(ctx context.Context, path string, noModel bool, env Env) (*config.Setup, int) {
	f, err := config.Load(path)
	if err != nil {
		fmt.Fprintln(env.Stderr, err)
		return nil, ExitUsage
	}
	return wireConfig(ctx, f, noModel, env)
}

// wireConfig wires a configuration read, as loadConfig does.
func wireConfig(ctx context.Context, f *config.File, noModel bool, env Env) (*config.Setup, int) {
	level := map[string]slog.Level{"debug": slog.LevelDebug, "info": slog.LevelInfo, "warn": slog.LevelWarn, "error": slog.LevelError}[f.Runtime.LogLevel]
	if f.Runtime.LogLevel == "" {
		level = slog.LevelWarn
	}
	logger := slog.New(slog.NewTextHandler(env.Stderr, &slog.HandlerOptions{Level: level}))
	s, err := f.Wire(ctx, config.WireOptions{Logger: logger, NoModel: noModel})
	if err != nil {
		fmt.Fprintln(env.Stderr, err)
		return nil, ExitUsage
	}
	for _, w := range s.Warnings {
		fmt.Fprintln(env.Stderr, "warning: "+w)
	}
	return s, ExitOK
}

func defaultConfig() string {
	if p := os.Getenv("WASMAGENT_CONFIG"); p != "" {
		return p
	}
	return "agent.toml"
}
