package session_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wasmagent/wasmagent/host"
	"github.com/wasmagent/wasmagent/host/hosttest"
	"github.com/wasmagent/wasmagent/host/scripted"
	"github.com/wasmagent/wasmagent/host/session"
)

func toolTurn(id string) scripted.Turn {
	return scripted.Turn{Content: host.Contents{host.ToolCall{ID: id, Name: "echo", Arguments: json.RawMessage(`{"x":1}`)}}}
}

func textTurn(s string) scripted.Turn { return scripted.Turn{Content: host.Text(s)} }

func opts(t *testing.T, dir string, m host.Model) session.Options {
	var warnings []string
	t.Cleanup(func() {
		for _, w := range warnings {
			t.Log("warning:", w)
		}
	})
	return session.Options{
		Store: &session.FileStore{Dir: dir, NoSync: true},
		Cwd:   "/work/project",
		Agent: host.AgentOptions{Model: m, Tools: []host.Tool{hosttest.Echo("echo")}},
		Warn:  func(w string) { warnings = append(warnings, w) },
	}
}

func prompt(t *testing.T, s *session.Session, text string) {
	t.Helper()
	ctx := context.Background()
	if err := s.Prompt(ctx, &host.UserMessage{Content: host.Text(text)}, session.Reject); err != nil {
		t.Fatal(err)
	}
	if err := s.Wait(ctx); err != nil {
		t.Fatal(err)
	}
}

func roles(msgs []host.Message) string {
	var b []string
	for _, m := range msgs {
		b = append(b, m.MessageRole())
	}
	return strings.Join(b, ",")
}

func mustJSON(t *testing.T, v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// A session reloads with the same messages, continues, and the file holds
// one line per message after the header.
func TestSessionReloadContinues(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	s := session.New(opts(t, dir, scripted.Of(toolTurn("c1"), textTurn("done"))))
	prompt(t, s, "hello")
	want := s.Messages()
	path := s.State().SessionFile
	if path == "" || roles(want) != "user,assistant,toolResult,assistant" {
		t.Fatalf("file %q, roles %s", path, roles(want))
	}
	if err := s.SetName(ctx, "my work"); err != nil {
		t.Fatal(err)
	}
	s.Close()

	r, err := session.Open(ctx, opts(t, dir, scripted.Of(textTurn("again"))), path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if got := r.Messages(); mustJSON(t, got) != mustJSON(t, want) {
		t.Fatalf("reloaded\n%s\nwant\n%s", mustJSON(t, got), mustJSON(t, want))
	}
	if st := r.State(); st.SessionName != "my work" || st.SessionID == "" {
		t.Fatalf("state %+v", st)
	}
	prompt(t, r, "more")
	if got := roles(r.Messages()); got != "user,assistant,toolResult,assistant,user,assistant" {
		t.Fatal(got)
	}
	data, _ := os.ReadFile(path)
	if n := strings.Count(string(data), "\n"); n != 1+4+1+2 {
		t.Fatalf("%d lines:\n%s", n, data)
	}
}

// Two sessions never write one file: the second Open names the holder.
func TestSessionLock(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	s := session.New(opts(t, dir, scripted.Of(textTurn("hi"))))
	prompt(t, s, "hello")
	path := s.State().SessionFile
	_, err := session.Open(ctx, opts(t, dir, scripted.Of()), path)
	var le *session.LockedError
	if !errors.As(err, &le) || le.PID != os.Getpid() || !strings.Contains(err.Error(), "pid") {
		t.Fatalf("second open: %v", err)
	}
	if err := (&session.FileStore{Dir: dir}).Remove(ctx, path); !errors.As(err, &le) {
		t.Fatalf("remove while held: %v", err)
	}
	s.Close()
	r, err := session.Open(ctx, opts(t, dir, scripted.Of()), path)
	if err != nil {
		t.Fatalf("after close: %v", err)
	}
	r.Close()
}

// A stale lock file (its holder killed) does not block: the lock is the
// kernel's, and died with its holder.
func TestSessionStaleLock(t *testing.T) {
	dir := t.TempDir()
	s := session.New(opts(t, dir, scripted.Of(textTurn("hi"))))
	prompt(t, s, "hello")
	path := s.State().SessionFile
	s.Close()
	os.WriteFile(path+".lock", []byte("999999\n"), 0o600)
	r, err := session.Open(context.Background(), opts(t, dir, scripted.Of()), path)
	if err != nil {
		t.Fatal(err)
	}
	r.Close()
}

// Every way a writer can die leaves a file that loads: each prefix of a
// real session file is cut at every byte, and each must open, hold the
// messages whose lines are whole, and end with no unanswered tool call.
func TestSessionEveryTruncationLoads(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	s := session.New(opts(t, dir, scripted.Of(
		scripted.Turn{Content: host.Contents{
			host.ToolCall{ID: "a", Name: "echo", Arguments: json.RawMessage(`{"x":1}`)},
			host.ToolCall{ID: "b", Name: "echo", Arguments: json.RawMessage(`{"x":2}`)},
		}},
		textTurn("done"))))
	prompt(t, s, "hello")
	path := s.State().SessionFile
	s.Close()
	full, _ := os.ReadFile(path)
	header := strings.Index(string(full), "\n") + 1
	for n := header; n <= len(full); n++ {
		// Every cut near a line end, and every 13th byte elsewhere.
		if n%13 != 0 && !strings.Contains(string(full[max(header, n-2):min(len(full), n+2)]), "\n") {
			continue
		}
		cut := filepath.Join(dir, "cut.jsonl")
		os.WriteFile(cut, full[:n], 0o600)
		var warned []string
		o := opts(t, dir, scripted.Of(textTurn("resumed")))
		o.Warn = func(w string) { warned = append(warned, w) }
		r, err := session.Open(ctx, o, cut)
		if err != nil {
			t.Fatalf("cut at %d: %v", n, err)
		}
		msgs := r.Messages()
		whole := strings.Count(string(full[header:n]), "\n")
		calls, _ := session.Interrupted(msgs, 0)
		if len(calls) != 0 {
			t.Fatalf("cut at %d: unanswered calls remain", n)
		}
		if len(msgs) < whole {
			t.Fatalf("cut at %d: %d messages, %d whole lines", n, len(msgs), whole)
		}
		if full[n-1] != '\n' && len(warned) == 0 {
			t.Fatalf("cut at %d: torn line without a warning", n)
		}
		// It continues: a prompt runs to the end and the file reloads.
		prompt(t, r, "go on")
		r.Close()
		again, err := session.Open(ctx, opts(t, dir, scripted.Of()), cut)
		if err != nil {
			t.Fatalf("cut at %d, reopened: %v", n, err)
		}
		if got, want := mustJSON(t, again.Messages()), mustJSON(t, append(msgs, lastTwo(t, cut)...)); len(got) == 0 || got != want {
			t.Fatalf("cut at %d: reopened transcript differs", n)
		}
		again.Close()
	}
}

// lastTwo returns the last two messages of the file at path.
func lastTwo(t *testing.T, path string) []host.Message {
	data, _ := os.ReadFile(path)
	tr, err := session.Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	v := tr.View(tr.Leaf())
	return v.Messages[len(v.Messages)-2:]
}

// An assistant message whose calls have no results gets error results
// saying so, in memory and in the file, and the user is told which.
func TestSessionInterruptedCalls(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	block := make(chan struct{})
	o := opts(t, dir, scripted.Of(toolTurn("slow1"), textTurn("never")))
	o.Agent.Tools = []host.Tool{hosttest.Tool("echo", "", func(ctx context.Context, _ string, _ json.RawMessage, _ host.UpdateFunc) (host.ToolResult, error) {
		close(block)
		<-ctx.Done()
		return host.ToolResult{}, ctx.Err()
	})}
	s := session.New(o)
	s.Prompt(ctx, &host.UserMessage{Content: host.Text("go")}, session.Reject)
	<-block
	path := s.State().SessionFile
	// Simulate the death: copy the file while the tool runs.
	data, _ := os.ReadFile(path)
	s.Close()
	os.WriteFile(path, data, 0o600)

	var warned []string
	o2 := opts(t, dir, scripted.Of(textTurn("ok")))
	o2.Warn = func(w string) { warned = append(warned, w) }
	r, err := session.Open(ctx, o2, path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	msgs := r.Messages()
	res, ok := msgs[len(msgs)-1].(*host.ToolResultMessage)
	if !ok || !res.IsError || res.ToolCallID != "slow1" || res.Content.TextOf() != session.InterruptedText {
		t.Fatalf("last message %s", mustJSON(t, msgs[len(msgs)-1]))
	}
	if len(warned) != 1 || !strings.Contains(warned[0], "echo (slow1)") || !strings.Contains(warned[0], "side effects") {
		t.Fatalf("warnings %q", warned)
	}
	if err := r.Continue(ctx); err != nil {
		t.Fatal(err)
	}
	r.Wait(ctx)
	if got := roles(r.Messages()); got != "user,assistant,toolResult,assistant" {
		t.Fatal(got)
	}
}

// Fork copies a session up to a user message into a new file that names
// its parent; the original is untouched.
func TestSessionForkAt(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	s := session.New(opts(t, dir, scripted.Of(textTurn("one"), textTurn("two"), textTurn("three"))))
	defer s.Close()
	prompt(t, s, "first")
	prompt(t, s, "second")
	orig := s.State().SessionFile
	points := s.ForkPoints()
	if len(points) != 2 || points[1].Text != "second" {
		t.Fatalf("fork points %+v", points)
	}
	text, err := s.ForkAt(ctx, points[1].EntryID)
	if err != nil || text != "second" {
		t.Fatalf("fork: %q %v", text, err)
	}
	if got := roles(s.Messages()); got != "user,assistant" {
		t.Fatal(got)
	}
	prompt(t, s, "other")
	forked := s.State().SessionFile
	if forked == orig || forked == "" {
		t.Fatalf("forked file %q", forked)
	}
	data, _ := os.ReadFile(forked)
	tr, _ := session.Decode(data)
	if tr.Header.ParentSession != orig || roles(tr.View(tr.Leaf()).Messages) != "user,assistant,user,assistant" {
		t.Fatalf("forked header %+v", tr.Header)
	}
	if _, err := s.ForkAt(ctx, "nope"); !errors.Is(err, session.ErrNoEntry) {
		t.Fatal(err)
	}
}

// Find resolves unique id prefixes and refuses ambiguous ones.
func TestFind(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	var ids []string
	for range 3 {
		s := session.New(opts(t, dir, scripted.Of(textTurn("x"))))
		prompt(t, s, "p")
		ids = append(ids, s.State().SessionID)
		s.Close()
		time.Sleep(2 * time.Millisecond)
	}
	store := &session.FileStore{Dir: dir}
	info, err := session.Find(ctx, store, ids[1][:30])
	if err != nil || info.ID != ids[1] {
		t.Fatalf("%v %v", info.ID, err)
	}
	if _, err := session.Find(ctx, store, ids[0][:4]); err == nil || !strings.Contains(err.Error(), "ambiguous") {
		t.Fatalf("ambiguous prefix: %v", err)
	}
	if _, err := session.Find(ctx, store, "zzzz"); !errors.Is(err, session.ErrNotFound) {
		t.Fatal(err)
	}
	latest, _ := session.Latest(ctx, store)
	if latest.ID != ids[2] {
		t.Fatalf("latest %s, want %s", latest.ID, ids[2])
	}
}

// A version-1 file (no ids) is migrated to a tree, rewritten in version 3
// when opened for writing, and keeps the entries it cannot interpret.
func TestVersion1Migrated(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "v1.jsonl")
	os.WriteFile(path, []byte(`{"type":"session","id":"old","timestamp":"2024-01-01T00:00:00.000Z","cwd":"/p"}
{"type":"message","timestamp":"2024-01-01T00:00:01.000Z","message":{"role":"user","content":"hi","timestamp":1}}
{"type":"label","timestamp":"2024-01-01T00:00:02.000Z","targetId":"x","label":"keep me"}
{"type":"message","timestamp":"2024-01-01T00:00:03.000Z","message":{"role":"assistant","content":[{"type":"text","text":"hello"}],"api":"a","provider":"p","model":"m","usage":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"totalTokens":0,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"stop","timestamp":2}}
`), 0o600)
	s, err := session.Open(context.Background(), opts(t, dir, scripted.Of()), path)
	if err != nil {
		t.Fatal(err)
	}
	if roles(s.Messages()) != "user,assistant" {
		t.Fatal(roles(s.Messages()))
	}
	s.Close()
	data, _ := os.ReadFile(path)
	tr, err := session.Decode(data)
	if err != nil || !strings.Contains(string(data), `"version":3`) || !strings.Contains(string(data), `"label":"keep me"`) {
		t.Fatalf("%v\n%s", err, data)
	}
	if got := tr.Branch(tr.Leaf()); len(got) != 3 || got[1].Type != "label" || got[2].ParentID != got[1].ID {
		t.Fatalf("tree %+v", got)
	}
}
