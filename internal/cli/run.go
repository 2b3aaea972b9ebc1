package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/wasmagent/wasmagent/host"
	"github.com/wasmagent/wasmagent/host/eventwire"
	"github.com/wasmagent/wasmagent/host/provider"
	"github.com/wasmagent/wasmagent/host/session"
)

// maxPrompt bounds a prompt read from stdin.
const maxPrompt = 16 << 20

func runCmd(ctx context.Context, args []string, env Env) int {
	f := newFlags("run", "run [flags] PROMPT|-", `  wasmagent run "What is 2^64 / 3?"
  wasmagent run --config examples/demo/agent.toml --json "Tidy the notes"
  git diff | wasmagent run - "review this"   (the diff, then the prompt)
  wasmagent run - < prompt.md                (the prompt from stdin)
`, env)
	cfg := f.String("config", defaultConfig(), "configuration `FILE`")
	jsonOut := f.Bool("json", false, "print every event as one JSON object a line (pi's event names and fields)")
	mode := f.String("mode", "text", "`MODE`: text, or json for --json (pi's --mode; its --mode rpc is wasmagent rpc)")
	f.Bool("print", false, "accepted for pi's and claude's -p: run prints the answer and exits")
	f.alias("p", "print")
	logLevel := logLevelFlag(f)
	over := addModelFlags(f)
	sf := addSessionFlags(f)
	if code, ok := f.parse(args); !ok {
		return code
	}
	switch *mode {
	case "text":
	case "json":
		*jsonOut = true
	case "rpc":
		return f.fail("--mode rpc is a command of its own here: wasmagent rpc (pi's RPC protocol on stdin/stdout)")
	default:
		return f.fail("--mode %q: want text or json (wasmagent rpc is pi's --mode rpc)", *mode)
	}
	if err := over.check(); err != nil {
		return f.fail("%v", err)
	}
	over.sessionDir = sf.dir
	prompt, err := readPrompt(f.Args(), env)
	if err != nil {
		return f.fail("%v", err)
	}
	r, done := newRenderer(*jsonOut, env)
	defer done()
	s, code := loadConfig(ctx, load{path: *cfg, logLevel: *logLevel, onRetry: r.retry, telemetry: true, holdLoads: true, over: over}, env)
	if s == nil {
		return code
	}
	defer s.Close()
	hint := modelHint(s.File)
	switch r := r.(type) {
	case jsonRetry:
		r.withEvents(s.Events)
	case plainRetry:
		r.explain = hint
	}
	sess, code := sf.open(ctx, s, session.RetryPolicy{}, env)
	if sess == nil {
		return code
	}
	defer sess.Close()
	a := sess.Agent()
	a.Subscribe(r.event)
	if audit := s.Audit(); audit != nil {
		a.Subscribe(audit)
	}
	var capNote string
	a.Subscribe(func(_ context.Context, e host.Event) error {
		if end, ok := e.(host.AgentEndEvent); ok {
			capNote = turnCapNote(end, s.File)
		}
		return nil
	})
	// The run's context, cancelled on an interrupt: unlike a.Abort, it
	// also aborts a run that has not begun yet.
	runCtx, abort := context.WithCancel(ctx)
	defer abort()
	result := make(chan error, 1)
	go func() { result <- a.PromptText(runCtx, prompt) }()
	interrupted := false
	for {
		select {
		case err = <-result:
			done()
			code := exitCode(a, err, interrupted, env)
			if capNote != "" && code == ExitOK {
				fmt.Fprintln(env.Stderr, printable(capNote))
			}
			if _, ok := r.(jsonRetry); ok && code == ExitFailed {
				// Plain mode says it after the error; here, stdout is
				// events only.
				if m := lastAssistant(a); m != nil && m.StopReason == host.StopReasonError {
					if h := hint(m.ErrorMessage, len(m.Content) > 0); h != "" {
						fmt.Fprintln(env.Stderr, printable(h))
					}
				}
			}
			return code
		case <-env.Interrupt:
			if interrupted {
				return ExitAborted
			}
			interrupted = true
			abort()
			if p, ok := r.(plainRetry); ok {
				// As chat's "(aborted)": without it, an answer cut short
				// ends as if the model had stopped there.
				p.note("(interrupted)")
			}
		}
	}
}

// readPrompt is the arguments joined, with stdin's content where an
// argument is "-" ("git diff | wasmagent run - 'review this'": the diff, a
// blank line, then the words), or stdin alone when there are no arguments
// and stdin is not a terminal. Arguments without "-" never read stdin: a
// run in a shell loop (while read f; do wasmagent run "…"; done < list)
// must not eat the loop's input, and a parent that leaves a pipe open
// must not hang the run (RATIONALE.md, "Why does run read stdin only for
// -?").
func readPrompt(args []string, env Env) (string, error) {
	if len(args) == 0 && !env.StdinTerminal && env.Stdin != nil {
		args = []string{"-"}
	}
	dashes := 0
	for _, a := range args {
		if a == "-" {
			dashes++
		}
	}
	if dashes == 0 {
		prompt := strings.Join(args, " ")
		if strings.TrimSpace(prompt) == "" {
			return "", errors.New("no prompt (give it as arguments, or on stdin with -)")
		}
		return prompt, nil
	}
	if dashes > 1 {
		return "", errors.New("- (the prompt's part on stdin) may be given once")
	}
	if env.Stdin == nil {
		return "", errors.New("no prompt: stdin is closed")
	}
	in, err := readStdin(env.Stdin)
	if err != nil {
		return "", err
	}
	var parts, words []string
	flush := func() {
		if w := strings.Join(words, " "); strings.TrimSpace(w) != "" {
			parts = append(parts, w)
		}
		words = nil
	}
	for _, a := range args {
		if a != "-" {
			words = append(words, a)
			continue
		}
		flush()
		if strings.TrimSpace(in) != "" {
			parts = append(parts, in)
		}
	}
	flush()
	if len(parts) == 0 {
		return "", errors.New("no prompt: stdin was empty")
	}
	return strings.Join(parts, "\n\n"), nil
}

// readStdin is all of stdin, up to maxPrompt, without its last newlines.
func readStdin(r io.Reader) (string, error) {
	b, err := io.ReadAll(io.LimitReader(r, maxPrompt+1))
	if err != nil {
		return "", fmt.Errorf("reading the prompt from stdin: %w", err)
	}
	if len(b) > maxPrompt {
		return "", fmt.Errorf("the prompt on stdin is over %d MiB", maxPrompt>>20)
	}
	return strings.TrimRight(string(b), "\n"), nil
}

// exitCode reads how a run ended: its last assistant message.
func exitCode(a *host.Agent, err error, interrupted bool, env Env) int {
	var re *host.RunError
	if errors.As(err, &re) {
		fmt.Fprintf(env.Stderr, "error: %s\n", printable(re.Err.Error()))
		return ExitFailed
	}
	if err != nil {
		fmt.Fprintf(env.Stderr, "error: %s\n", printable(err.Error()))
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

// lastAssistant is the run's last answer, or nil.
func lastAssistant(a *host.Agent) *host.AssistantMessage {
	msgs := a.State().Messages
	for i := len(msgs) - 1; i >= 0; i-- {
		if m, ok := msgs[i].(*host.AssistantMessage); ok {
			return m
		}
	}
	return nil
}

// eventRenderer is a renderer that also hears of the model's retries.
type eventRenderer interface {
	renderer
	retry(r provider.Retry)
}

type jsonRetry struct {
	*jsonRenderer
	status io.Writer
}

// withEvents sets what event lines carry (agent.toml [events]) once the
// configuration is read; no event comes before.
func (r *jsonRenderer) withEvents(o eventwire.Options) { r.enc = eventwire.NewLines(r.out, o) }

// retry: a retry is not one of pi's events; it is said on stderr.
func (j jsonRetry) retry(r provider.Retry) { fmt.Fprintln(j.status, r.String()) }

type plainRetry struct{ *plainRenderer }

func (p plainRetry) retry(r provider.Retry) { p.plainRenderer.retry(r.String()) }

func newRenderer(asJSON bool, env Env) (eventRenderer, func()) {
	if asJSON {
		out := jsonOut(env.Stdout)
		return jsonRetry{&jsonRenderer{out: out, enc: eventwire.NewLines(out, eventwire.Options{})}, env.Stderr}, func() {}
	}
	r := newPlainRenderer(newStdScreen(env), env.Terminal)
	var once sync.Once
	return plainRetry{r}, func() { once.Do(r.close) }
}
