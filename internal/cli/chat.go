package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync/atomic"

	"golang.org/x/term"

	"github.com/wasmagent/wasmagent/host"
	"github.com/wasmagent/wasmagent/host/provider"
)

const chatExamples = `  wasmagent chat
  (type a prompt; while the agent works, a line you type steers it;
   /follow TEXT queues a follow-up, /help lists the commands; when a
   hook asks about a call, the next line answers it: y, n or a(lways); Ctrl-C
   aborts a run, clears the line at the prompt, and on an empty line
   twice quits, as does Ctrl-D)
`

// input is what chat reads: a line, a Ctrl-C (typed in the line editor,
// with what was on the line), or the end of input.
type input struct {
	line      string
	interrupt bool
	cleared   bool // the Ctrl-C cleared a line that had text
	eof       bool
}

// chatSession is one chat: the agent, its renderer, and whether a run is
// going.
type chatSession struct {
	ctx      context.Context
	a        *host.Agent
	r        *plainRenderer
	console  *consoleScreen // nil when reading plain lines
	approver *host.PromptApprover
	store    *chatStore // the session and the configuration
	afterRun []func()   // session commands typed during a run
	env      Env
	running  chan error
	// cancelRun cancels the running run's context: an abort that comes
	// before the agent has begun the run (Enter, then Ctrl-C or SIGTERM
	// at once) is not lost, as Agent.Abort alone would lose it.
	cancelRun context.CancelFunc
	aborted   bool        // the running run was aborted (Ctrl-C)
	ended     atomic.Bool // the running run has emitted agent_end
	// quitWhenIdle: piped input ended during a run; chat quits when the
	// runs are over.
	quitWhenIdle bool
	quit         bool // /quit was typed
}

func chatCmd(ctx context.Context, args []string, env Env) int {
	f := newFlags("chat", "chat [flags]", chatExamples, env)
	cfg := f.String("config", defaultConfig(), "configuration `FILE`")
	logLevel := logLevelFlag(f)
	over := addModelFlags(f)
	sf := addSessionFlags(f)
	resume := f.Bool("resume", false, "list this directory's sessions at the start, to resume one with /resume ID (pi's --resume picker)")
	f.alias("r", "resume")
	if code, ok := f.parse(args); !ok {
		return code
	}
	if f.NArg() > 0 {
		return f.fail("takes no arguments (type the prompts once it starts)")
	}
	if err := over.check(); err != nil {
		return f.fail("%v", err)
	}
	over.sessionDir = sf.dir
	c := &chatSession{ctx: ctx, env: env}
	inputs := make(chan input, 16)
	// Loaded before the terminal goes raw, so that Ctrl-C is SIGINT and
	// ends chat while plugins compile (in raw mode it was a byte nobody
	// read until the load ended). The renderer exists before any retry.
	l := load{path: *cfg, logLevel: *logLevel, onRetry: func(x provider.Retry) { plainRetry{c.r}.retry(x) }, telemetry: true, over: over}
	s, code := loadConfig(ctx, l, env)
	if s == nil {
		return code
	}
	if env.Console != nil {
		restore, err := env.Console.MakeRaw()
		if err != nil {
			s.Close()
			fmt.Fprintf(env.Stderr, "wasmagent chat: the terminal: %v\n", err)
			return ExitFailed
		}
		defer restore()
		w, h, _ := env.Console.Size()
		c.console = newConsoleScreen(env.Stdin, ctl(env.Stdout), w, h, env.NoColor)
		c.console.t.SetBracketedPasteMode(true)
		defer c.console.close(ctl(env.Stdout))
		c.r = newPlainRenderer(c.console, true)
		c.r.maxLive = max(w-30, 20)
	} else {
		c.r = newPlainRenderer(newStdScreen(env), env.Terminal)
	}
	defer c.r.close()
	c.r.explain = modelHint(s.File)
	if c.store, code = openChatSession(ctx, sf, s, l, c.errEnv(env)); c.store == nil {
		return code
	}
	defer c.store.close()
	c.a = c.store.sess.Agent()
	c.a.Subscribe(c.r.event)
	c.a.Subscribe(func(_ context.Context, e host.Event) error {
		if end, ok := e.(host.AgentEndEvent); ok {
			c.ended.Store(true)
			if note := turnCapNote(end, c.store.setup.File); note != "" {
				c.r.note(printable(note))
			}
		}
		return nil
	})
	c.setApprover()
	if audit := s.Audit(); audit != nil {
		c.a.Subscribe(audit)
	}
	c.r.note("wasmagent chat: type a prompt (Ctrl-D to quit, /help for commands)")
	if *resume {
		c.store.resume(ctx, "", c.say)
	}
	if c.console != nil {
		go readConsole(c.console, inputs)
	} else {
		go readLines(env.Stdin, inputs)
	}
	return c.loop(inputs, env.Interrupt, c.resized(env))
}

// resized is the console's resize signal, or nil.
func (c *chatSession) resized(env Env) <-chan struct{} {
	if c.console == nil {
		return nil
	}
	return env.Console.Resized()
}

func (c *chatSession) resize() {
	w, h, err := c.env.Console.Size()
	if err == nil {
		c.console.resize(w, h)
	}
}

// errEnv is env with stderr through the console when there is one (raw
// mode needs \r\n, and the prompt must be redrawn below).
func (c *chatSession) errEnv(env Env) Env {
	if c.console != nil {
		env.Stderr = c.console.t
	}
	return env
}

func (c *chatSession) loop(inputs <-chan input, interrupt, resized <-chan struct{}) int {
	lastInterrupt := false
	// settle finishes a run that has ended on screen (agent_end shown)
	// and is only returning, so that a line or a Ctrl-C entered after
	// its summary meets an idle chat: the next prompt, not a steer; a
	// first Ctrl-C at the prompt, not a second one.
	settle := func() (quit bool) {
		if c.running != nil && c.ended.Load() {
			return c.finish(<-c.running, &lastInterrupt)
		}
		return false
	}
	for {
		select {
		case in := <-inputs:
			if settle() {
				return ExitOK
			}
			switch {
			case in.eof && c.console == nil && c.running != nil:
				// Piped lines ended: the run they started (and what it
				// queued) finishes, then chat quits ("printf 'hi\n' |
				// wasmagent chat" answers hi). SIGINT still aborts it.
				inputs, c.quitWhenIdle = nil, true
			case in.eof:
				c.stop()
				return ExitOK
			case in.interrupt:
				if in.cleared && c.running == nil {
					lastInterrupt = false
					continue
				}
				if c.interrupt(lastInterrupt) {
					return ExitAborted
				}
				lastInterrupt = true
			default:
				lastInterrupt = false
				c.handle(in.line)
				if c.quit {
					c.stop()
					return ExitOK
				}
			}
		case err := <-c.running:
			if c.finish(err, &lastInterrupt) {
				return ExitOK
			}
		case <-resized:
			c.resize()
		case <-c.env.Terminate:
			c.stop()
			return ExitAborted
		case <-interrupt:
			if c.terminated() {
				// (SIGTERM comes as an interrupt too: it ends chat, where
				// an interrupt would only end a run.)
				c.stop()
				return ExitAborted
			}
			if settle() {
				return ExitOK
			}
			if c.interrupt(lastInterrupt) {
				return ExitAborted
			}
			lastInterrupt = true
		}
	}
}

// terminated says the process was asked to end (SIGTERM).
func (c *chatSession) terminated() bool {
	select {
	case <-c.env.Terminate:
		return true
	default:
		return false
	}
}

// finish takes a run's end: the prompt is idle again, session commands
// typed during it run, and what was queued as it ended starts the next
// run; quit when chat was told to quit once idle.
func (c *chatSession) finish(err error, lastInterrupt *bool) (quit bool) {
	c.running = nil
	aborted := c.aborted
	c.aborted = false
	c.setBusy(false)
	if c.console != nil {
		// At the editor's prompt, quitting takes two Ctrl-C of
		// its own, whatever stopped the run.
		*lastInterrupt = false
	}
	if err != nil && !errors.Is(err, host.ErrContinueEmpty) {
		c.r.note(printable(fmt.Sprintf("error: %v", err)))
	}
	for len(c.afterRun) > 0 && c.running == nil {
		f := c.afterRun[0]
		c.afterRun = c.afterRun[1:]
		f()
	}
	// A steer or follow-up typed as the run was ending (after
	// the loop last looked at its queues) starts the next run,
	// as it would have extended this one; after Ctrl-C it waits
	// for the next prompt.
	if c.running == nil && !aborted && c.a.HasQueuedMessages() {
		c.start(func(ctx context.Context) error { return c.a.Continue(ctx) })
	}
	return c.running == nil && c.quitWhenIdle
}

// interrupt handles a Ctrl-C: it aborts a run; at the prompt, a second one
// in a row quits (true).
func (c *chatSession) interrupt(again bool) (quit bool) {
	if again || (c.running == nil && c.console == nil) {
		c.stop()
		return true
	}
	if c.running != nil {
		c.abortRun()
		c.aborted = true
		if c.console != nil {
			c.r.note("(aborted)")
		} else {
			c.r.note("(aborted; Ctrl-C again to quit)")
		}
		return false
	}
	c.r.note("(Ctrl-C again or Ctrl-D to quit)")
	return false
}

// handle acts on a typed line: the answer to a hook's pending question, a
// slash command, a steer while a run goes, else a new prompt.
func (c *chatSession) handle(line string) {
	if c.answer(line) {
		return
	}
	text := strings.TrimSpace(line)
	if text == "" {
		return
	}
	if cmd, arg, ok := findSlash(text); ok {
		cmd.run(c, arg)
		return
	}
	if note, ok := unknownSlash(text); ok {
		c.r.note(printable(note))
		return
	}
	if c.running != nil {
		c.a.Steer(&host.UserMessage{Content: host.Text(text)})
		c.r.note("(steering)")
		return
	}
	c.start(func(ctx context.Context) error { return c.a.PromptText(ctx, text) })
}

func (c *chatSession) start(f func(context.Context) error) {
	c.ended.Store(false)
	ch := make(chan error, 1)
	ctx, cancel := context.WithCancel(c.ctx)
	go func() {
		defer cancel()
		runBegins()
		ch <- f(ctx)
	}()
	c.running, c.cancelRun = ch, cancel
	c.setBusy(true)
}

// runBegins is called as a run's goroutine starts, before the agent
// begins the run (tests hold a run there).
var runBegins = func() {}

// abortRun aborts the running run, begun by the agent or not yet.
func (c *chatSession) abortRun() {
	c.cancelRun()
	c.a.Abort()
}

// stop aborts a run that is going and waits for it.
func (c *chatSession) stop() {
	if c.running != nil {
		c.abortRun()
		<-c.running
		c.running = nil
	}
}

func (c *chatSession) setBusy(b bool) {
	if c.console != nil {
		c.console.setBusy(b)
	}
}

// readLines reads plain lines (stdin not a terminal).
func readLines(r io.Reader, out chan<- input) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		out <- input{line: sc.Text()}
	}
	out <- input{eof: true}
}

// readConsole reads edited lines; Ctrl-C comes through the key callback.
func readConsole(c *consoleScreen, out chan<- input) {
	t := c.t
	t.AutoCompleteCallback = func(line string, pos int, key rune) (string, int, bool) {
		if key != ctrlCKey {
			return "", 0, false
		}
		if c.loading.Load() {
			select {
			case c.ctrlC <- struct{}{}:
			default:
			}
			return "", 0, true
		}
		out <- input{interrupt: true, cleared: line != ""}
		return "", 0, true
	}
	// A paste of several lines is one input: its lines come marked as
	// pasted, and the line entered after them (typed, or the paste's
	// last) ends it.
	var pasted []string
	for {
		line, err := t.ReadLine()
		if errors.Is(err, term.ErrPasteIndicator) {
			c.entered(line)
			pasted = append(pasted, line)
			continue
		}
		if err != nil {
			out <- input{eof: true}
			return
		}
		c.entered(line)
		if len(pasted) > 0 {
			line = strings.Join(append(pasted, line), "\n")
			pasted = nil
		}
		out <- input{line: line}
	}
}
