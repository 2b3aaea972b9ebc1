package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/wasmagent/wasmagent/host/config"
	"github.com/wasmagent/wasmagent/host/provider"
	"github.com/wasmagent/wasmagent/host/telemetry"
	"github.com/wasmagent/wasmagent/runtime"
)

// load says how a command loads its configuration.
type load struct {
	path     string
	noModel  bool                 // commands that only look at the plugins
	logLevel string               // --log-level; "" keeps [runtime] log_level
	onRetry  func(provider.Retry) // the model's retries, for the status line
	// telemetry: the command runs the agent or its tools, and exports
	// what [telemetry] asks (run, chat, rpc, mcp, serve).
	telemetry bool
	// metrics: keep metrics for a Prometheus scrape even when [telemetry]
	// is off, and hand the Telemetry to onTelemetry (serve's /metrics).
	metrics     bool
	onTelemetry func(*telemetry.Telemetry)
	// holdLoads: the command sends a model request at once (run): the
	// plugins' background loads wait until it is written
	// (config.WireOptions.HoldLoads).
	holdLoads bool
	// over: values the command line gives over agent.toml's (--model,
	// --thinking, --session-dir), or nil.
	over *overrides
}

// loadConfig reads the configuration and wires it, reporting problems on
// stderr. Plugin logs go to stderr at the configured level.
func loadConfig(ctx context.Context, l load, env Env) (*config.Setup, int) {
	f, err := config.Load(l.path)
	if err != nil {
		printLoadError(env, l.path, err)
		return nil, ExitUsage
	}
	if err := l.over.apply(f); err != nil {
		fmt.Fprintln(env.Stderr, err)
		return nil, ExitUsage
	}
	return wireConfig(ctx, f, l, env)
}

// printLoadError reports a configuration that did not load; a file that
// is not there says where it was looked for and how to give one.
func printLoadError(env Env, path string, err error) {
	// (A file the configuration names that is not there is one of its
	// problems, a *config.Error, whose cause is fs.ErrNotExist too.)
	var problem *config.Error
	if !errors.Is(err, fs.ErrNotExist) || errors.As(err, &problem) {
		fmt.Fprintln(env.Stderr, err)
		if hint := unbuiltPlugins(path, err.Error()); hint != "" {
			fmt.Fprintln(env.Stderr, hint)
		}
		return
	}
	where := path
	if abs, aerr := filepath.Abs(path); aerr == nil {
		where = abs
	}
	fmt.Fprintf(env.Stderr, "configuration: %s does not exist.\n", where)
	if path != "agent.toml" || os.Getenv("WASMAGENT_CONFIG") != "" {
		return
	}
	fmt.Fprint(env.Stderr, `Name one with --config FILE (or WASMAGENT_CONFIG), or write agent.toml here;
the smallest, for any OpenAI-compatible server (no tools yet):

  [model]
  provider = "openai"
  name = "gpt-4o-mini"    # the model's name on the server
  # base_url = "http://localhost:11434/v1"    # not OpenAI: the API root

The agent.toml at the root of the wasmagent repository explains every key.
`)
}

// wireConfig wires a configuration read, as loadConfig does (l.path is
// not read again). Wiring loads the plugins, which may compile them for
// tens of seconds: an interrupt ends it (ExitAborted), and a slow one
// says what it loads (whileLoading).
func wireConfig(ctx context.Context, f *config.File, l load, env Env) (*config.Setup, int) {
	if f.Runtime.CacheDir == "" {
		f.Runtime.CacheDir = defaultCache(env, len(f.Tools)+len(f.Hooks) > 0, fmt.Sprintf("set [runtime] cache_dir in %s, or XDG_CACHE_HOME", f.Path))
	}
	var files []string
	for _, t := range f.Tools {
		files = append(files, t.Plugin.Plugin)
	}
	for _, h := range f.Hooks {
		files = append(files, h.Plugin.Plugin)
	}
	var (
		s    *config.Setup
		code int
	)
	notice := loadNotice(files, f.Runtime.CacheDir == "off")
	if whileLoading(env, notice, func(env Env) { s, code = wireNow(ctx, f, l, env) }, func() {
		if s != nil {
			s.Close()
		}
	}) {
		return nil, ExitAborted
	}
	return s, code
}

// wireNow is wireConfig's work.
func wireNow(ctx context.Context, f *config.File, l load, env Env) (*config.Setup, int) {
	name := l.logLevel
	if name == "" {
		name = f.Runtime.LogLevel
	}
	level, err := parseLevel(name)
	if err != nil {
		fmt.Fprintln(env.Stderr, err)
		return nil, ExitUsage
	}
	// Commands that run a model list cached tools at once and load
	// plugins behind (docs/runtime.md, "Startup"); the ones that only look
	// at plugins load and describe each.
	opts := config.WireOptions{Logger: newLogger(env, level), NoModel: l.noModel, OnModelRetry: l.onRetry, Background: !l.noModel, HoldLoads: l.holdLoads}
	tel, err := startTelemetry(f, l, &opts)
	if err != nil {
		fmt.Fprintln(env.Stderr, err)
		return nil, ExitUsage
	}
	s, err := f.Wire(ctx, opts)
	if err != nil {
		fmt.Fprintln(env.Stderr, err)
		if d := f.Runtime.CacheDir; d != "off" && strings.Contains(err.Error(), "compilation cache") {
			fmt.Fprintf(env.Stderr, "hint: the compilation cache is [runtime] cache_dir in %s: a directory wasmagent can write, or \"off\"\n", f.Path)
		}
		var files []string
		for _, t := range f.Tools {
			files = append(files, t.Plugin.Plugin)
		}
		for _, h := range f.Hooks {
			files = append(files, h.Plugin.Plugin)
		}
		if hint := notWasmHint(err, files...); hint != "" {
			fmt.Fprintln(env.Stderr, hint)
		}
		var problem *config.Error
		if errors.As(err, &problem) && problem.Key == "model.api_key_env" && f.Model.APIKeyEnv != "" {
			fmt.Fprintf(env.Stderr, "hint: export %s=… (your key), or for a local server that needs none (Ollama, llama.cpp) set base_url in %s\n", f.Model.APIKeyEnv, f.Path)
		}
		return nil, ExitUsage
	}
	watchSetup(tel, s)
	if l.onTelemetry != nil && tel != nil {
		l.onTelemetry(tel)
	}
	for _, w := range s.Warnings {
		fmt.Fprintln(env.Stderr, "warning: "+w)
	}
	return s, ExitOK
}

// defaultCache is the compilation cache of a runtime that nothing names
// one for: "" (runtime.DefaultCacheDir), or "off" where that directory
// cannot be made (a read-only or missing home): a cache must not stop a
// command. warn says so on stderr, with fix, for a command that compiles
// plugins.
func defaultCache(env Env, warn bool, fix string) string {
	dir := runtime.DefaultCacheDir()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		if warn {
			fmt.Fprintf(env.Stderr, "warning: no compilation cache (%v): plugins are compiled again at every start; %s\n", err, fix)
		}
		return "off"
	}
	return ""
}

// parseLevel reads a log level name; "" is warn.
func parseLevel(name string) (slog.Level, error) {
	switch strings.ToLower(name) {
	case "debug", "trace": // (trace: extism's finest; slog has none finer than debug)
		return slog.LevelDebug, nil
	case "info":
		return slog.LevelInfo, nil
	case "", "warn", "warning":
		return slog.LevelWarn, nil
	case "error":
		return slog.LevelError, nil
	}
	return 0, fmt.Errorf("--log-level %q: want debug, info, warn or error", name)
}

func newLogger(env Env, level slog.Level) *slog.Logger {
	return slog.New(slog.NewTextHandler(env.Stderr, &slog.HandlerOptions{Level: level}))
}

// logLevelFlag adds --log-level to a command.
func logLevelFlag(f *flags) *string {
	return f.String("log-level", "", "plugin and runtime log `LEVEL` on stderr: debug, info, warn or error (default: [runtime] log_level, else warn)")
}

// missingPlugin finds the plugin files a configuration error says do not
// exist.
var missingPlugin = regexp.MustCompile(`\.plugin: "([^"]+)" does not exist`)

// unbuiltPlugins is a hint when plugins the configuration names are
// missing but their sources are beside where they would be (a checkout
// where make plugins has not run yet), or "".
func unbuiltPlugins(configPath, msg string) string {
	for _, m := range missingPlugin.FindAllStringSubmatch(msg, -1) {
		p := m[1]
		if !filepath.IsAbs(p) {
			p = filepath.Join(filepath.Dir(configPath), p)
		}
		if abs, err := filepath.Abs(p); err == nil {
			p = abs
		}
		src := filepath.Dir(p)
		if _, err := os.Stat(filepath.Join(src, "main.go")); err != nil {
			if _, err := os.Stat(filepath.Join(src, "package.json")); err != nil {
				continue
			}
		}
		// The checkout's root: the nearest directory above with a Makefile.
		for dir := src; ; dir = filepath.Dir(dir) {
			if _, err := os.Stat(filepath.Join(dir, "Makefile")); err == nil {
				return fmt.Sprintf("hint: the plugins are built from their sources: run make plugins in %s", dir)
			}
			if filepath.Dir(dir) == dir {
				break
			}
		}
		return fmt.Sprintf("hint: %s is built from the sources in %s (GOOS=wasip1 GOARCH=wasm go build -trimpath -buildmode=c-shared)", m[1], src)
	}
	return ""
}
