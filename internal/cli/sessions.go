package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/wasmagent/wasmagent/host"
	"github.com/wasmagent/wasmagent/host/config"
	"github.com/wasmagent/wasmagent/host/session"
	"github.com/wasmagent/wasmagent/internal/words"
)

// sessionFlags are the flags that pick the session of run, chat and rpc.
type sessionFlags struct {
	cont bool
	ref  string
	fork string
	none bool
	dir  string // --session-dir
}

func addSessionFlags(fs *flags) *sessionFlags {
	f := &sessionFlags{}
	fs.BoolVar(&f.cont, "continue", false, "continue the latest session of this directory")
	fs.alias("c", "continue")
	addSessionDirFlag(fs, &f.dir)
	fs.StringVar(&f.ref, "session", "", "continue the session `ID` (a unique prefix works) or file PATH")
	fs.StringVar(&f.fork, "fork", "", "start a new session from a copy of session `ID` or PATH")
	fs.BoolVar(&f.none, "no-session", false, "keep this conversation in memory only")
	return f
}

// addSessionDirFlag adds --session-dir, pi's flag for where sessions are
// kept: [sessions] dir for this command.
func addSessionDirFlag(f *flags, dir *string) {
	f.StringVar(dir, "session-dir", "", "keep and look up sessions under `DIR`, instead of [sessions] dir (as pi's --session-dir)")
}

// sessionStore returns the store of this working directory's sessions.
func sessionStore(f *config.File) (*session.FileStore, string, error) {
	cwd, err := os.Getwd()
	if err != nil {
		return nil, "", err
	}
	root := ""
	if f != nil {
		root = f.Sessions.Dir
	}
	if root == "" {
		if root, err = session.DefaultRoot(); err != nil {
			return nil, "", err
		}
	}
	return &session.FileStore{Dir: session.DirFor(root, cwd)}, cwd, nil
}

// notHere is err, the failure to find the session ref among this
// directory's, and when ref is no session here but is the id (or a
// prefix) of sessions kept for other working directories, where they are:
// sessions are kept per directory, so an id copied from "sessions ls"
// run elsewhere was only "no such session".
func notHere(store *session.FileStore, ref string, err error) string {
	msg := err.Error()
	if !errors.Is(err, session.ErrNotFound) || ref == "" || strings.ContainsAny(ref, `*?[\/`) {
		return msg
	}
	found, _ := filepath.Glob(filepath.Join(filepath.Dir(store.Dir), "*", "*_"+ref+"*.jsonl"))
	switch {
	case len(found) == 1:
		return fmt.Sprintf("%s in %s (sessions are kept per working directory); it is a session of another directory: name it by its path, %s", msg, store.Dir, found[0])
	case len(found) > 1:
		return fmt.Sprintf("%s in %s (sessions are kept per working directory); %s of other directories match it, e.g. %s", msg, store.Dir, words.Count(len(found), "session"), found[0])
	}
	return msg + " of this directory's (wasmagent sessions ls lists them)"
}

// models are the models agent.toml gives a session.
func models(s *config.Setup) []session.Model {
	if s.Model == nil {
		return nil
	}
	info := host.ModelInfo{Provider: s.File.Model.Provider, ID: s.File.Model.Name}
	if d, ok := s.Model.(host.ModelDescriber); ok {
		info = d.ModelInfo()
	}
	base := s.File.Model.BaseURL
	if base == "" && s.File.Model.Provider == "openai" {
		base = "https://api.openai.com/v1" // openai-go's default
	}
	return []session.Model{{Info: info, Model: s.Model, BaseURL: base, MaxTokens: int(s.File.Model.MaxTokens)}}
}

// open opens the session the flags name, reporting problems on stderr.
func (f *sessionFlags) open(ctx context.Context, s *config.Setup, retry session.RetryPolicy, env Env) (*session.Session, int) {
	n := 0
	for _, set := range []bool{f.cont, f.ref != "", f.fork != "", f.none} {
		if set {
			n++
		}
	}
	if n > 1 {
		fmt.Fprintln(env.Stderr, "wasmagent: give at most one of --continue, --session, --fork and --no-session")
		return nil, ExitUsage
	}
	opts := session.Options{
		Agent:  s.Options,
		Models: models(s),
		Retry:  retry,
		Warn:   func(w string) { fmt.Fprintln(env.Stderr, "warning: "+w) },
	}
	if f.none {
		return session.New(opts), ExitOK
	}
	store, cwd, err := sessionStore(s.File)
	if err != nil {
		fmt.Fprintln(env.Stderr, "wasmagent:", err)
		return nil, ExitUsage
	}
	opts.Store, opts.Cwd = store, cwd
	// Every session but --no-session writes there: a directory that
	// cannot be made is said now, before the model is asked (the run
	// failed at its first message, exit 1, as if the model had).
	if err := os.MkdirAll(store.Dir, 0o700); err != nil {
		fmt.Fprintf(env.Stderr, "wasmagent: sessions cannot be kept (%v): set [sessions] dir in %s, or XDG_STATE_HOME, or run with --no-session\n", err, s.File.Path)
		return nil, ExitUsage
	}
	var sess *session.Session
	switch {
	case f.cont:
		info, err := session.Latest(ctx, store)
		if errors.Is(err, session.ErrNotFound) {
			// As pi: a new session. Said, since sessions are kept per
			// directory and one started elsewhere is not found from here.
			fmt.Fprintf(env.Stderr, "note: no session of %s to continue (sessions are kept per directory): a new one starts\n", cwd)
			return session.New(opts), ExitOK
		}
		if err == nil {
			sess, err = session.Open(ctx, opts, info.Key)
		}
		if err != nil {
			fmt.Fprintln(env.Stderr, "wasmagent:", err)
			return nil, ExitUsage
		}
	case f.ref != "" || f.fork != "":
		ref := f.ref + f.fork
		info, err := session.Find(ctx, store, ref)
		if err == nil && f.fork != "" {
			sess, err = session.Fork(ctx, opts, info.Key)
		} else if err == nil {
			sess, err = session.Open(ctx, opts, info.Key)
		}
		if err != nil {
			fmt.Fprintln(env.Stderr, "wasmagent:", notHere(store, ref, err))
			return nil, ExitUsage
		}
	default:
		sess = session.New(opts)
	}
	return sess, ExitOK
}

// sessionsSub is the command "sessions SUB" of the command table.
func sessionsSub(sub, synopsis string) func(context.Context, []string, Env) int {
	return func(ctx context.Context, args []string, env Env) int {
		return sessionsCmd(ctx, sub, synopsis, args, env)
	}
}

func sessionsCmd(ctx context.Context, sub, synopsis string, args []string, env Env) int {
	fs := newFlags("sessions "+sub, synopsis, "", env)
	cfg := fs.String("config", defaultConfig(), "configuration `FILE` (for [sessions] dir)")
	var dir string
	addSessionDirFlag(fs, &dir)
	format := "md"
	if sub == "export" {
		fs.StringVar(&format, "format", "md", "`FORMAT`: md (Markdown) or jsonl (the session file as it is)")
	}
	if code, ok := fs.parse(args); !ok {
		return code
	}
	if format != "md" && format != "jsonl" {
		return fs.fail("--format %q: want md or jsonl", format)
	}
	var file *config.File
	// The default agent.toml may be absent (the default sessions
	// directory then); a file named with --config may not.
	if _, err := os.Stat(*cfg); err == nil || fs.set("config") {
		if file, err = config.LoadTools(*cfg); err != nil { // [sessions] only: no model needed
			printLoadError(env, *cfg, err)
			return ExitUsage
		}
	}
	if dir != "" {
		if file == nil {
			file = &config.File{}
		}
		if err := (&overrides{sessionDir: dir}).apply(file); err != nil {
			fmt.Fprintln(env.Stderr, err)
			return ExitUsage
		}
	}
	store, _, err := sessionStore(file)
	if err != nil {
		fmt.Fprintln(env.Stderr, "wasmagent:", err)
		return ExitUsage
	}
	if sub == "ls" {
		if fs.NArg() > 0 {
			return fs.fail("takes no arguments")
		}
		return listSessions(ctx, store, env)
	}
	if fs.NArg() != 1 {
		return fs.fail("takes one session: its ID (a unique prefix works; wasmagent sessions ls lists them) or PATH")
	}
	info, err := session.Find(ctx, store, fs.Arg(0))
	if err != nil {
		// No such session, an ambiguous prefix, a file that is not one:
		// the argument is wrong (exit 2, as run --session says it).
		fmt.Fprintln(env.Stderr, "wasmagent:", notHere(store, fs.Arg(0), err))
		return ExitUsage
	}
	switch sub {
	case "rm":
		err = store.Remove(ctx, info.Key)
		if err == nil {
			fmt.Fprintf(env.Stderr, "removed %s (%s)\n", info.ID, info.Path)
		}
	case "export", "show":
		if format == "jsonl" {
			var data []byte
			if data, err = os.ReadFile(info.Path); err == nil {
				_, err = jsonOut(env.Stdout).Write(data)
			}
			break
		}
		var t *session.Transcript
		if t, err = store.Load(ctx, info.Key); err == nil {
			for _, w := range t.Warnings {
				fmt.Fprintln(env.Stderr, "warning: "+w)
			}
			err = session.WriteMarkdown(env.Stdout, t)
		}
	}
	if err != nil {
		fmt.Fprintln(env.Stderr, "wasmagent:", err)
		return ExitFailed
	}
	return ExitOK
}

func listSessions(ctx context.Context, store *session.FileStore, env Env) int {
	all, err := store.List(ctx)
	if err != nil {
		fmt.Fprintln(env.Stderr, "wasmagent:", err)
		return ExitFailed
	}
	if len(all) == 0 {
		fmt.Fprintf(env.Stderr, "no sessions in %s\n", store.Dir)
		return ExitOK
	}
	w := tabwriter.NewWriter(env.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "ID\tMODIFIED\tMESSAGES\tNAME")
	for _, s := range all {
		name := flatPrintable(s.Name)
		if name == "" {
			name = oneLine(flatPrintable(s.First), 60)
		}
		fmt.Fprintf(w, "%s\t%s\t%d\t%s\n", s.ID, s.Modified.Local().Format(time.DateTime), s.Messages, name)
	}
	w.Flush()
	return ExitOK
}

func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// describeSession is /session's answer: file, id, messages, tokens.
func describeSession(sess *session.Session) string {
	st := sess.State()
	stats := sess.Stats()
	file := st.SessionFile
	if file == "" {
		file = "(no file yet: it is written at the first message)"
	}
	return fmt.Sprintf("session %s%s\nfile: %s\nmessages: %d (%d user, %d assistant, %s)\ntokens: %d in, %d out, %d cache read, %d total; cost $%.4f",
		st.SessionID, nameSuffix(st.SessionName), file, stats.TotalMessages, stats.UserMessages, stats.AssistantMessages, words.Count(stats.ToolResults, "tool result"),
		stats.Tokens.Input, stats.Tokens.Output, stats.Tokens.CacheRead, stats.Tokens.TotalTokens, stats.Tokens.Cost.Total)
}

func nameSuffix(n string) string {
	if n == "" {
		return ""
	}
	return fmt.Sprintf(" %q", n)
}
