package cli

import (
	"context"
	"fmt"

	"github.com/wasmagent/wasmagent/host/config"
	"github.com/wasmagent/wasmagent/host/session"
	"github.com/wasmagent/wasmagent/internal/words"
)

// chatStore is chat's session and the configuration it runs with; the
// session slash commands act on both.
type chatStore struct {
	sess  *session.Session
	setup *config.Setup
	load  load // how the configuration was loaded, for /reload
	env   Env
}

func openChatSession(ctx context.Context, sf *sessionFlags, s *config.Setup, l load, env Env) (*chatStore, int) {
	sess, code := sf.open(ctx, s, session.RetryPolicy{}, env)
	if sess == nil {
		s.Close()
		return nil, code
	}
	if n := len(sess.Messages()); n > 0 {
		fmt.Fprintf(env.Stderr, "resumed session %s (%s)\n", sess.State().SessionID, words.Count(n, "message"))
	}
	return &chatStore{sess: sess, setup: s, load: l, env: env}, ExitOK
}

func (c *chatStore) close() {
	c.sess.Close()
	c.setup.Close()
}

func (c *chatStore) resume(ctx context.Context, ref string, say func(string, ...any)) {
	if ref == "" {
		store, _, err := sessionStore(c.setup.File)
		if err != nil {
			say("error: %v", err)
			return
		}
		listEnv := c.env
		listEnv.Stdout = c.env.Stderr // chat's stdout is the assistant's text
		listSessions(ctx, store, listEnv)
		say("(/resume ID resumes one; a unique prefix of the id is enough)")
		return
	}
	if err := c.sess.Switch(ctx, ref); err != nil {
		say("error: %v", err)
		return
	}
	say("(resumed %s: %s)", c.sess.State().SessionID, words.Count(len(c.sess.Messages()), "message"))
}

// reload loads the configuration again; an interrupt (or Ctrl-C typed
// on chat's terminal: interrupt) ends the load, as at chat's start.
func (c *chatStore) reload(ctx context.Context, say func(string, ...any), interrupt <-chan struct{}) {
	env := c.env
	env.Interrupt = interrupt
	s, code := loadConfig(ctx, c.load, env)
	if code == ExitAborted {
		say("(reload interrupted: the previous configuration stays)")
		return
	}
	if s == nil || code != ExitOK {
		say("(reload failed: the previous configuration stays)")
		return
	}
	if err := c.sess.Reconfigure(s.Options, models(s)); err != nil {
		s.Close()
		say("error: %v", err)
		return
	}
	c.setup.Close()
	c.setup = s
	say("(reloaded %s: %s, %s)", c.load.path, words.Count(len(s.Tools), "tool"), words.Count(len(s.Hooks), "hook"))
}

// The session commands of chat's slash table (slash.go).

func slashSession(c *chatSession, _ string) { c.r.note(describeSession(c.store.sess)) }

func slashName(c *chatSession, arg string) {
	if arg == "" {
		c.r.note("(/name needs a NAME)")
		return
	}
	if err := c.store.sess.SetName(c.ctx, arg); err != nil {
		c.r.note(printable(fmt.Sprintf("error: %v", err)))
		return
	}
	c.r.note(fmt.Sprintf("(named %q)", arg))
}

// idle says whether a command that changes the session may run now; while
// a run goes, the command waits for its end.
func (c *chatSession) idle(cmd string, again func()) bool {
	if c.running != nil {
		c.afterRun = append(c.afterRun, again)
		c.r.note(fmt.Sprintf("(/%s runs once the agent is idle: Ctrl-C aborts the run)", cmd))
		return false
	}
	return true
}

func slashNew(c *chatSession, arg string) {
	if !c.idle("new", func() { slashNew(c, arg) }) {
		return
	}
	if err := c.store.sess.NewSession(c.ctx, ""); err != nil {
		c.r.note(printable(fmt.Sprintf("error: %v", err)))
		return
	}
	c.setApprover()
	c.r.note(fmt.Sprintf("(new session %s)", c.store.sess.State().SessionID))
}

func slashResume(c *chatSession, arg string) {
	if c.idle("resume", func() { slashResume(c, arg) }) {
		c.store.resume(c.ctx, arg, c.say)
		c.setApprover()
	}
}

func slashReload(c *chatSession, arg string) {
	if c.idle("reload", func() { slashReload(c, arg) }) {
		if c.console != nil {
			// In raw mode Ctrl-C is a key the editor reads, not SIGINT;
			// a signal (SIGTERM, a SIGINT sent by kill) ends the load too.
			c.console.whileLoading(func(ctrlC <-chan struct{}) {
				withEither(ctrlC, c.env.Interrupt, func(interrupt <-chan struct{}) { c.store.reload(c.ctx, c.say, interrupt) })
			})
		} else {
			c.store.reload(c.ctx, c.say, c.env.Interrupt)
		}
		c.setApprover()
	}
}

// withEither runs f with a channel that receives a value for each one a
// or b receives while f runs: a wait that two kinds of interrupt end.
func withEither(a, b <-chan struct{}, f func(<-chan struct{})) {
	out := make(chan struct{}, 1)
	done := make(chan struct{})
	go func() {
		for {
			select {
			case <-a:
			case <-b:
			case <-done:
				return
			}
			select {
			case out <- struct{}{}:
			default:
			}
		}
	}()
	defer close(done)
	f(out)
}

// say is a note in printf form.
func (c *chatSession) say(format string, args ...any) {
	c.r.note(printable(fmt.Sprintf(format, args...)))
}
