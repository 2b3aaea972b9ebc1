package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/wasmagent/wasmagent/host/config"
	"github.com/wasmagent/wasmagent/host/serve"
	"github.com/wasmagent/wasmagent/host/serve/web"
	"github.com/wasmagent/wasmagent/host/session"
	"github.com/wasmagent/wasmagent/host/telemetry"
	"github.com/wasmagent/wasmagent/internal/words"
)

// defaultServeAddr is where serve listens when neither --addr nor
// [serve] addr says.
const defaultServeAddr = "127.0.0.1:8080"

// defaultDrain is how long a stop lets runs finish when [serve]
// drain_timeout does not say.
const defaultDrain = 30 * time.Second

func serveCmd(ctx context.Context, args []string, env Env) int {
	fs := newFlags("serve", "serve [--config FILE] [--addr HOST:PORT] [--hash-token]", `  wasmagent serve --config agent.toml
  wasmagent serve --addr 127.0.0.1:9000
  openssl rand -hex 32 | tee token | wasmagent serve --hash-token
  (the HTTP API, its event streams and its tokens: docs/serve.md)
`, env)
	cfg := fs.String("config", defaultConfig(), "configuration `FILE`")
	addrFlag := fs.String("addr", "", "listen on `HOST:PORT` (default [serve] addr, else "+defaultServeAddr+")")
	hash := fs.Bool("hash-token", false, "read a token on stdin and print the line to put in the tokens file")
	if code, ok := fs.parse(args); !ok {
		return code
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(env.Stderr, "wasmagent serve: unexpected argument %q\n", fs.Arg(0))
		return ExitUsage
	}
	if *hash {
		return hashToken(env)
	}
	// Metrics are kept for /metrics whatever [telemetry] says; spans are
	// exported when it asks (docs/telemetry.md).
	var tel *telemetry.Telemetry
	s, code := loadConfig(ctx, load{path: *cfg, telemetry: true, metrics: true, onTelemetry: func(t *telemetry.Telemetry) { tel = t }}, env)
	if s == nil {
		return code
	}
	defer s.Close()
	o, err := serveSetup(s.File, *addrFlag)
	if err != nil {
		fmt.Fprintln(env.Stderr, "wasmagent serve:", err)
		return ExitUsage
	}
	// The sessions are kept there (the embedded JetStream's files): a
	// directory this process cannot write is said now, naming it, not as
	// an embedded server that "did not start within 10s".
	if !s.File.Cluster.Joins() {
		if err := writableDir(o.dir); err != nil {
			fmt.Fprintf(env.Stderr, "wasmagent serve: sessions cannot be kept (%v): set [serve] dir or [sessions] dir in %s, or XDG_STATE_HOME\n", err, s.File.Path)
			return ExitUsage
		}
	}
	logger := slog.New(slog.NewTextHandler(env.Stderr, nil))
	backend, err := serveBackend(ctx, s.File, serve.LocalOptions{
		Root: o.dir,
		Session: session.Options{
			Agent: s.Options, Models: models(s), Retry: session.DefaultRetry,
			Warn: func(w string) { logger.Warn(w) },
		},
		Events: s.Events,
		OnOpen: func(_, _ string, sess *session.Session) {
			if audit := s.Audit(); audit != nil {
				sess.Agent().Subscribe(audit)
			}
		},
	})
	if err != nil {
		fmt.Fprintln(env.Stderr, "wasmagent serve:", err)
		return ExitFailed
	}
	defer backend.Close()
	f := s.File.Serve
	srv, err := serve.New(serve.Options{
		Backend: backend, Tokens: o.tokens, Log: logger,
		Quota:          serve.Quota{Sessions: f.MaxSessions, Runs: f.MaxRuns, ToolCallsPerMinute: f.MaxToolCallsPerMinute},
		MaxBodyBytes:   int64(f.MaxBody),
		MaxPromptBytes: int(f.MaxPrompt),
		Heartbeat:      f.Heartbeat.Duration,
		MaxStreams:     f.MaxStreams,
		Web:            web.Handler(),
		Metrics:        tel.MetricsHandler(),
	})
	if err != nil {
		fmt.Fprintln(env.Stderr, "wasmagent serve:", err)
		return ExitFailed
	}
	ln, err := listen("--addr", o.addr)
	if err != nil {
		fmt.Fprintln(env.Stderr, "wasmagent serve:", err)
		return ExitFailed
	}
	// No WriteTimeout: event streams last; each of their writes has its own.
	hs := &http.Server{Handler: withHealth(srv.Handler(), backend), ReadHeaderTimeout: 10 * time.Second, ReadTimeout: time.Minute, MaxHeaderBytes: 64 << 10, IdleTimeout: 2 * time.Minute}
	auth := "no tokens: loopback only"
	if n := len(o.tokens); n > 0 {
		auth = fmt.Sprintf("%d token(s)", n)
	}
	fmt.Fprintf(env.Stderr, "wasmagent serve: listening on http://%s/ (%s; sessions in %s)\n", ln.Addr(), auth, o.dir)
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()
	select {
	case err := <-served:
		fmt.Fprintln(env.Stderr, "wasmagent serve:", err)
		return ExitFailed
	case <-ctx.Done():
	case <-env.Interrupt:
	}
	return stopServing(srv, backend, hs, o.drain, env)
}

// stopServing stops taking runs, lets running ones finish for up to
// drain (a second interrupt cuts that short), aborts the rest, then ends
// the event streams and the server.
func stopServing(srv *serve.Server, backend serve.Backend, hs *http.Server, drain time.Duration, env Env) int {
	fmt.Fprintf(env.Stderr, "wasmagent serve: stopping: no new runs; running ones have %s to finish (interrupt again to abort them now)\n", drain)
	srv.StopRuns(fmt.Sprintf("the server is stopping: it takes no new runs (running ones have up to %s to finish)", drain))
	ctx, cancel := context.WithTimeout(context.Background(), drain)
	defer cancel()
	go func() {
		select {
		case <-env.Interrupt:
			cancel()
		case <-ctx.Done():
		}
	}()
	code := ExitOK // the runs cut short are recorded as interrupted
	if err := backend.Drain(ctx); err != nil {
		fmt.Fprintln(env.Stderr, "wasmagent serve:", err)
		// An orderly stop all the same (systemd expects 0 after SIGTERM).
	}
	srv.Stop()
	sctx, scancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer scancel()
	hs.Shutdown(sctx)
	if err := backend.Close(); err != nil {
		fmt.Fprintln(env.Stderr, "wasmagent serve:", err)
		return ExitFailed
	}
	fmt.Fprintln(env.Stderr, "wasmagent serve: stopped")
	return code
}

// serveOptions is what serve takes from the flags and [serve].
type serveOptions struct {
	addr   string
	tokens []serve.Token
	dir    string
	drain  time.Duration
}

func serveSetup(f *config.File, addrFlag string) (serveOptions, error) {
	var o serveOptions
	o.addr = addrFlag
	if o.addr == "" {
		o.addr = f.Serve.Addr
	}
	if o.addr == "" {
		o.addr = defaultServeAddr
	}
	host, _, err := net.SplitHostPort(o.addr)
	if err != nil {
		return o, fmt.Errorf("address %q: want host:port (%v)", o.addr, err)
	}
	data, where, err := f.ServeTokens()
	if err != nil {
		return o, err
	}
	if data != nil {
		if o.tokens, err = serve.ParseTokens(data, where); err != nil {
			return o, err
		}
		if len(o.tokens) == 0 {
			return o, fmt.Errorf("%s holds no token: add lines \"NAME sha256:HEX\" (wasmagent serve --hash-token)", where)
		}
	}
	if len(o.tokens) == 0 && !serve.IsLoopback(host) {
		return o, fmt.Errorf("%s listens beyond this machine: set [serve] tokens_file or tokens_env in %s so that every request must carry a bearer token", o.addr, f.Path)
	}
	o.dir = f.Serve.Dir
	if o.dir == "" {
		root := f.Sessions.Dir
		if root == "" {
			if root, err = session.DefaultRoot(); err != nil {
				return o, err
			}
		}
		o.dir = filepath.Join(root, "serve")
	}
	o.drain = f.Serve.DrainTimeout.Duration
	if o.drain == 0 {
		o.drain = defaultDrain
	}
	return o, nil
}

// hashToken reads a token from stdin and prints its tokens-file line.
func hashToken(env Env) int {
	line, err := bufio.NewReader(io.LimitReader(env.Stdin, 4096)).ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		fmt.Fprintln(env.Stderr, "wasmagent serve --hash-token:", err)
		return ExitFailed
	}
	tok := strings.TrimSpace(line)
	if len(tok) < 16 {
		fmt.Fprintf(env.Stderr, "wasmagent serve --hash-token: the token is %s; use at least 16 random ones (openssl rand -hex 32)\n", words.Count(len(tok), "byte"))
		return ExitUsage
	}
	fmt.Fprintf(env.Stdout, "NAME %s\n", serve.HashToken(tok))
	return ExitOK
}

// writableDir makes dir if it is not there and checks that a file can be
// made in it.
func writableDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, ".wasmagent-probe-*")
	if err != nil {
		return err
	}
	f.Close()
	return os.Remove(f.Name())
}
