package cli

import (
	"context"
	"fmt"

	"github.com/wasmagent/wasmagent/host/rpc"
	"github.com/wasmagent/wasmagent/host/session"
)

func rpcCmd(ctx context.Context, args []string, env Env) int {
	fs := newFlags("rpc", "rpc [--config FILE] [--continue | --session ID | --fork ID | --no-session]", `  wasmagent rpc --config agent.toml
  (commands are JSON lines on stdin, responses and events JSON lines on
   stdout: pi-coding-agent's RPC mode; see docs/rpc.md)
`, env)
	cfg := fs.String("config", defaultConfig(), "configuration `FILE`")
	mode := fs.String("mode", "rpc", "`MODE`: accepted for pi's RpcClient, which passes --mode rpc")
	over := addModelFlags(fs)
	sf := addSessionFlags(fs)
	if code, ok := fs.parse(args); !ok {
		return code
	}
	if *mode != "rpc" {
		return fs.fail("--mode %q: rpc speaks pi's --mode rpc only (pi's --mode json is wasmagent run --json)", *mode)
	}
	if err := over.check(); err != nil {
		return fs.fail("%v", err)
	}
	over.sessionDir = sf.dir
	if fs.NArg() > 0 {
		fmt.Fprintf(env.Stderr, "wasmagent rpc: unexpected argument %q\n", fs.Arg(0))
		return ExitUsage
	}
	s, code := loadConfig(ctx, load{path: *cfg, telemetry: true, over: over}, env)
	if s == nil {
		return code
	}
	defer s.Close()
	sess, code := sf.open(ctx, s, session.DefaultRetry, env)
	if sess == nil {
		return code
	}
	defer sess.Close()
	if audit := s.Audit(); audit != nil {
		sess.Agent().Subscribe(audit)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case <-env.Interrupt:
			cancel()
		case <-ctx.Done():
		}
	}()
	keepOnBrokenPipe()
	if err := rpc.Serve(ctx, sess, env.Stdin, jsonOut(env.Stdout), rpc.Options{Events: s.Events}); err != nil {
		fmt.Fprintln(env.Stderr, "wasmagent rpc:", err)
		return ExitFailed
	}
	return ExitOK
}
