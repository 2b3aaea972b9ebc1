package cli

import (
	"context"
	"fmt"
	"strings"

	"github.com/wasmagent/wasmagent/host/config"
	"github.com/wasmagent/wasmagent/host/session"
)

// chatSession is chat's session and the configuration it runs with; its
// slash commands act on both.
type chatSession struct {
	sess    *session.Session
	setup   *config.Setup
	cfgPath string
	env     Env
}

func openChatSession(ctx context.Context, sf *sessionFlags, s *config.Setup, cfgPath string, env Env) (*chatSession, int) {
	sess, code := sf.open(ctx, s, session.RetryPolicy{}, env)
	if sess == nil {
		s.Close()
		return nil, code
	}
	if n := len(sess.Messages()); n > 0 {
		fmt.Fprintf(env.Stderr, "resumed session %s (%d messages)\n", sess.State().SessionID, n)
	}
	return &chatSession{sess: sess, setup: s, cfgPath: cfgPath, env: env}, ExitOK
}

func (c *chatSession) close() {
	c.sess.Close()
	c.setup.Close()
}

const slashHelp = `/new              start a new session
/resume [ID]      list this directory's sessions, or resume one
/name NAME        name this session
/session          file, id, messages and tokens of this session
/reload           re-read agent.toml and the plugins (the transcript stays)
/follow TEXT      queue a follow-up`

// slash runs a slash command and reports whether line was one. Commands
// that change the session wait until no run is active.
func (c *chatSession) slash(ctx context.Context, line string, running bool) bool {
	cmd, arg, _ := strings.Cut(line, " ")
	arg = strings.TrimSpace(arg)
	say := func(format string, args ...any) { fmt.Fprintf(c.env.Stderr, format+"\n", args...) }
	busy := func() bool {
		if running {
			say("(%s waits until the agent is idle: Ctrl-C aborts the run)", cmd)
		}
		return running
	}
	switch cmd {
	case "/help":
		say("%s", slashHelp)
	case "/session":
		say("%s", describeSession(c.sess))
	case "/name":
		if err := c.sess.SetName(ctx, arg); err != nil {
			say("error: %v", err)
		} else {
			say("(named %q)", arg)
		}
	case "/new":
		if busy() {
			break
		}
		if err := c.sess.NewSession(ctx, ""); err != nil {
			say("error: %v", err)
		} else {
			say("(new session %s)", c.sess.State().SessionID)
		}
	case "/resume":
		if busy() {
			break
		}
		c.resume(ctx, arg, say)
	case "/reload":
		if busy() {
			break
		}
		c.reload(ctx, say)
	default:
		return false
	}
	return true
}

func (c *chatSession) resume(ctx context.Context, ref string, say func(string, ...any)) {
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
	say("(resumed %s: %d messages)", c.sess.State().SessionID, len(c.sess.Messages()))
}

func (c *chatSession) reload(ctx context.Context, say func(string, ...any)) {
	s, code := loadConfig(ctx, c.cfgPath, false, c.env)
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
	say("(reloaded %s: %d tools, %d hooks)", c.cfgPath, len(s.Tools), len(s.Hooks))
}
