package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/wasmagent/wasmagent/host"
	"github.com/wasmagent/wasmagent/host/config"
	"github.com/wasmagent/wasmagent/host/mcp"
)

func mcpCmd(ctx context.Context, args []string, env Env) int {
	fs := newFlags("mcp", "mcp [--config FILE] [--http ADDR] [--print-config claude|cursor|codex]", `  wasmagent mcp                                  serve agent.toml's tools on stdio
  wasmagent mcp --config agent.toml --http 127.0.0.1:8377
  wasmagent mcp --config agent.toml --print-config claude   (the snippet names it by its absolute path)
`, env)
	cfg := fs.String("config", defaultConfig(), "configuration `FILE`")
	addr := fs.String("http", "", "serve streamable HTTP at `ADDR` (host:port, or :port for 127.0.0.1) instead of stdio")
	client := fs.String("print-config", "", "print what `CLIENT` (claude, cursor or codex) needs to start this server, and exit")
	bounds := addHTTPBoundFlags(fs)
	logLevel := logLevelFlag(fs)
	if code, ok := fs.parse(args); !ok {
		return code
	}
	if len(fs.Args()) > 0 {
		fmt.Fprintf(env.Stderr, "wasmagent mcp: unexpected argument %q\n", fs.Args()[0])
		return ExitUsage
	}
	if err := bounds.check(fs, *addr != ""); err != nil {
		return fs.fail("%v", err)
	}
	if *client != "" {
		return printClientConfig(ctx, *client, *cfg, *addr, *logLevel, env)
	}
	f, err := config.LoadTools(*cfg) // no model needed
	if err != nil {
		printLoadError(env, *cfg, err)
		return ExitUsage
	}
	s, code := wireConfig(ctx, f, load{path: *cfg, noModel: true, logLevel: *logLevel, telemetry: true}, env)
	if s == nil {
		return code
	}
	defer s.Close()
	// (Taken only now: while the plugins load, wireConfig takes it.)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case <-env.Interrupt:
			cancel()
		case <-ctx.Done():
		}
	}()
	srv, err := newMCPServer(s)
	if err != nil {
		fmt.Fprintln(env.Stderr, err)
		return ExitUsage
	}
	if *addr == "" {
		keepOnBrokenPipe()
		err = srv.ServeStdio(ctx, env.Stdin, jsonOut(env.Stdout), 0)
	} else {
		err = serveMCPHTTP(ctx, srv, s.File, *addr, bounds, env)
	}
	if err != nil {
		fmt.Fprintln(env.Stderr, "wasmagent mcp:", err)
		if ctx.Err() != nil {
			return ExitAborted
		}
		return ExitFailed
	}
	return ExitOK
}

// newMCPServer serves the configuration's tools through the loop's five
// stages: the same tools, hooks and audit as "run" and "chat".
func newMCPServer(s *config.Setup) (*mcp.Server, error) {
	o := s.Options
	return mcp.New(mcp.Options{
		Version: moduleVersion(),
		Runner: &host.ToolRunner{
			Tools: o.Tools, BeforeToolCall: o.BeforeToolCall, AfterToolCall: o.AfterToolCall,
			Approver: o.Approver, ApprovalTimeout: o.ApprovalTimeout, OnHook: o.OnHook,
			Observer: o.Observer,
		},
		Audit: s.Audit(),
	})
}

// printClientConfig prints the snippet a client's configuration needs:
// the command line with absolute paths. The configuration is loaded
// first, as the server would load it: a client shows a server that
// fails to start as a line in its own logs, if at all.
func printClientConfig(ctx context.Context, client, cfg, addr, logLevel string, env Env) int {
	if !slices.Contains([]string{"claude", "cursor", "codex"}, client) {
		fmt.Fprintf(env.Stderr, "wasmagent mcp: --print-config %q: the clients are claude, cursor and codex\n", client)
		return ExitUsage
	}
	f, err := config.LoadTools(cfg)
	if err != nil {
		printLoadError(env, cfg, err)
		return ExitUsage
	}
	s, code := wireConfig(ctx, f, load{path: cfg, noModel: true, logLevel: logLevel}, env)
	if s == nil {
		return code
	}
	s.Close()
	exe, err := os.Executable()
	if err == nil {
		exe, err = filepath.EvalSymlinks(exe)
	}
	if err != nil {
		fmt.Fprintln(env.Stderr, "wasmagent mcp: cannot find this program's path:", err)
		return ExitFailed
	}
	abs, err := filepath.Abs(cfg)
	if err != nil {
		fmt.Fprintln(env.Stderr, "wasmagent mcp:", err)
		return ExitUsage
	}
	if addr != "" {
		fmt.Fprintln(env.Stderr, "wasmagent mcp: --print-config describes the stdio server (clients start it themselves); --http is not used")
	}
	if goRunBuild(exe) {
		fmt.Fprintf(env.Stderr, "note: %s is a build in Go's cache (go run), which Go replaces and removes: the client would lose it. Install wasmagent (go install ./cmd/wasmagent in the checkout) and run --print-config with that binary.\n", exe)
	}
	args := []string{"mcp", "--config", abs}
	servers := map[string]any{"mcpServers": map[string]any{"wasmagent": map[string]any{"command": exe, "args": args}}}
	j, _ := json.MarshalIndent(servers, "", "  ")
	switch client {
	case "claude":
		fmt.Fprintf(env.Stdout, "# Claude Code: run this once (add --scope project to share it through .mcp.json)\nclaude mcp add wasmagent -- %s %s %s %s\n\n# or put this in .mcp.json at the project's root:\n%s\n",
			shellQuote(exe), args[0], args[1], shellQuote(abs), j)
	case "cursor":
		fmt.Fprintf(env.Stdout, "# Cursor: ~/.cursor/mcp.json (all projects) or .cursor/mcp.json (this project)\n%s\n", j)
	case "codex":
		fmt.Fprintf(env.Stdout, "# Codex CLI: ~/.codex/config.toml\n[mcp_servers.wasmagent]\ncommand = %s\nargs = [%s, %s, %s]\n",
			strconv.Quote(exe), strconv.Quote(args[0]), strconv.Quote(args[1]), strconv.Quote(abs))
	}
	return ExitOK
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	for _, r := range s {
		if !(r == '/' || r == '.' || r == '-' || r == '_' || r == '+' || r == ':' || r == '@' || r == ',' ||
			r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
		}
	}
	return s
}

// serveMCPHTTP serves streamable HTTP at addr until ctx ends. An address
// beyond loopback needs a bearer token ([mcp] token_env or token_file).
func serveMCPHTTP(ctx context.Context, srv *mcp.Server, f *config.File, addr string, bounds *httpBoundFlags, env Env) error {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("--http %q: want host:port or :port (%v)", addr, err)
	}
	if host == "" {
		host = "127.0.0.1"
	}
	token, err := f.MCPToken()
	if err != nil {
		return err
	}
	if token == "" && !mcp.IsLoopback(host) {
		return fmt.Errorf("--http %s listens beyond this machine: set [mcp] token_env or token_file in %s so that clients must send a bearer token", addr, f.Path)
	}
	ln, err := listen("--http", net.JoinHostPort(host, port))
	if err != nil {
		return err
	}
	hs := srv.HTTPServer(mcp.HTTPOptions{
		Token: token, AllowedOrigins: f.MCP.AllowedOrigins,
		SessionTimeout: f.MCP.SessionTimeout.Duration, MaxBodyBytes: int64(f.MCP.MaxBody),
		MaxSessions: *bounds.maxSessions, ReadTimeout: *bounds.read, WriteTimeout: *bounds.write, IdleTimeout: *bounds.idle,
	})
	fmt.Fprintf(env.Stderr, "wasmagent mcp: serving streamable HTTP at http://%s/\n", ln.Addr())
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		hs.Shutdown(sctx)
	}()
	if err := hs.Serve(ln); err != http.ErrServerClosed {
		return err
	}
	return nil
}

// goRunBuild reports whether exe is a binary "go run" made: in Go's build
// cache or a go-build temporary directory, neither of them a place a
// client can start it from tomorrow.
func goRunBuild(exe string) bool {
	for _, part := range strings.FieldsFunc(exe, func(r rune) bool { return r == '/' || r == '\\' }) {
		if strings.HasPrefix(part, "go-build") {
			return true
		}
	}
	return false
}

// httpBoundFlags are the bounds of `mcp --http` against clients it does
// not trust; their defaults are mcp.HTTPOptions'.
type httpBoundFlags struct {
	read, write, idle *time.Duration
	maxSessions       *int
}

func addHTTPBoundFlags(f *flags) *httpBoundFlags {
	return &httpBoundFlags{
		read:        f.Duration("read-timeout", mcp.DefaultReadTimeout, "with --http: the time to read one request, header and body (a `DURATION`)"),
		write:       f.Duration("write-timeout", mcp.DefaultWriteTimeout, "with --http: the time an answer or event stream may make no progress before its client is cut off (a `DURATION`)"),
		idle:        f.Duration("idle-timeout", mcp.DefaultIdleTimeout, "with --http: close a kept-alive connection idle this long (a `DURATION`)"),
		maxSessions: f.Int("max-sessions", mcp.DefaultMaxSessions, "with --http: the sessions open at once (`N`); an initialize past them gets 503"),
	}
}

// check says which bound is not positive, or was given without --http
// (where it would bound nothing).
func (b *httpBoundFlags) check(f *flags, http bool) error {
	for _, d := range []struct {
		name string
		v    time.Duration
	}{{"read-timeout", *b.read}, {"write-timeout", *b.write}, {"idle-timeout", *b.idle}} {
		if d.v <= 0 {
			return fmt.Errorf("--%s %v: want a positive duration", d.name, d.v)
		}
	}
	if *b.maxSessions <= 0 {
		return fmt.Errorf("--max-sessions %d: want a positive number", *b.maxSessions)
	}
	for _, name := range []string{"read-timeout", "write-timeout", "idle-timeout", "max-sessions"} {
		if f.set(name) && !http {
			return fmt.Errorf("--%s bounds the HTTP server: give it with --http (on stdio there is one client, which started the server)", name)
		}
	}
	return nil
}
