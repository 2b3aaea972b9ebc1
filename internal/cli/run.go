package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/wasmagent/wasmagent/host"
	"github.com/wasmagent/wasmagent/host/eventwire"
)

type renderer interface {
	event(ctx context.Context, e host.Event) error
}

func newRenderer(jsonOut bool, events eventwire.Options, env Env) (renderer, func()) {
	if jsonOut {
		return jsonRenderer{eventwire.NewLines(env.Stdout, events)}, func() {}
	}
	r := newPlainRenderer(env.Stdout, env.Stderr, env.Terminal)
	return r, r.close
}

func runCmd(ctx context.Context, args []string, env Env) int {
	fs := newFlags("run", "run [--config FILE] [--json] PROMPT", `  wasmagent run "What is 2^64 / 3?"
  wasmagent run --config examples/demo/agent.toml --json "Tidy the notes"
`, env)
	cfg := fs.String("config", defaultConfig(), "configuration `file`")
	jsonOut := fs.Bool("json", false, "print every event as one JSON object a line (pi's event names and fields)")
	if code, ok := parse(fs, args); !ok {
		return code
	}
	prompt := strings.Join(fs.Args(), " ")
	if strings.TrimSpace(prompt) == "" {
		fmt.Fprintln(env.Stderr, "wasmagent run: no prompt")
		fs.Usage()
		return ExitUsage
	}
	s, code := loadConfig(ctx, *cfg, false, env)
	if s == nil {
		return code
	}
	defer s.Close()
	r, done := newRenderer(*jsonOut, s.Events, env)
	a := host.NewAgent(s.Options)
	a.Subscribe(r.event)
	if audit := s.Audit(); audit != nil {
		a.Subscribe(audit)
	}
	result := make(chan error, 1)
	go func() { result <- a.PromptText(ctx, prompt) }()
	interrupted := false
	var err error
wait:
	for {
		select {
		case err = <-result:
			break wait
		case <-env.Interrupt:
			if interrupted {
				done()
				return ExitAborted
			}
			interrupted = true
			a.Abort()
		}
	}
	done()
	return exitCode(a, err, interrupted, env)
}

// exitCode reads how a run ended: its last assistant message.
func exitCode(a *host.Agent, err error, interrupted bool, env Env) int {
	var re *host.RunError
	if errors.As(err, &re) {
		fmt.Fprintf(env.Stderr, "error: %v\n", re.Err)
		return ExitFailed
	}
	if err != nil {
		fmt.Fprintf(env.Stderr, "error: %v\n", err)
		return ExitFailed
	}
	msgs := a.State().Messages
	for i := len(msgs) - 1; i >= 0; i-- {
		if m, ok := msgs[i].(*host.AssistantMessage); ok {
			switch m.StopReason {
			case host.StopReasonAborted:
				return ExitAborted
			case host.StopReasonError:
				return ExitFailed
			}
			break
		}
	}
	if interrupted {
		return ExitAborted
	}
	return ExitOK
}

func chatCmd(ctx context.Context, args []string, env Env) int {
	fs := newFlags("chat", "chat [--config FILE]", `  wasmagent chat
  (type a prompt; while the agent works, a line you type steers it;
   /follow TEXT queues a follow-up; Ctrl-C aborts the run; Ctrl-C again
   or Ctrl-D exits)
`, env)
	cfg := fs.String("config", defaultConfig(), "configuration `file`")
	if code, ok := parse(fs, args); !ok {
		return code
	}
	s, code := loadConfig(ctx, *cfg, false, env)
	if s == nil {
		return code
	}
	defer s.Close()
	r, done := newRenderer(false, s.Events, env)
	defer done()
	a := host.NewAgent(s.Options)
	a.Subscribe(r.event)
	if audit := s.Audit(); audit != nil {
		a.Subscribe(audit)
	}

	lines := make(chan string)
	go func() {
		sc := bufio.NewScanner(env.Stdin)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	fmt.Fprintln(env.Stderr, "wasmagent chat: type a prompt (Ctrl-D to quit)")
	var running chan error
	lastInterrupt := false
	for {
		select {
		case line, ok := <-lines:
			if !ok {
				if running != nil {
					a.Abort()
					<-running
				}
				return ExitOK
			}
			lastInterrupt = false
			text := strings.TrimSpace(line)
			if text == "" {
				continue
			}
			if follow, ok := strings.CutPrefix(text, "/follow "); ok {
				a.FollowUp(&host.UserMessage{Content: host.Text(follow)})
				fmt.Fprintln(env.Stderr, "(follow-up queued)")
				if running == nil {
					running = start(ctx, a, func(ctx context.Context) error { return a.Continue(ctx) })
				}
				continue
			}
			if running != nil {
				a.Steer(&host.UserMessage{Content: host.Text(text)})
				fmt.Fprintln(env.Stderr, "(steering)")
				continue
			}
			running = start(ctx, a, func(ctx context.Context) error { return a.PromptText(ctx, text) })
		case err := <-running:
			running = nil
			if err != nil && !errors.Is(err, host.ErrContinueEmpty) {
				fmt.Fprintf(env.Stderr, "error: %v\n", err)
			}
		case <-env.Interrupt:
			if running != nil && !lastInterrupt {
				a.Abort()
				fmt.Fprintln(env.Stderr, "(aborted; Ctrl-C again to quit)")
				lastInterrupt = true
				continue
			}
			if running != nil {
				<-running
			}
			return ExitAborted
		}
	}
}

func start(ctx context.Context, a *host.Agent, f func(context.Context) error) chan error {
	ch := make(chan error, 1)
	go func() { ch <- f(ctx) }()
	return ch
}
