package session_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	goruntime "runtime"
	"testing"
	"time"

	"github.com/wasmagent/wasmagent/host"
	"github.com/wasmagent/wasmagent/host/scripted"
	"github.com/wasmagent/wasmagent/host/session"
)

// Commands that replace the transcript refuse while a run is active; a
// prompt without a streaming behavior is refused, with one it is queued.
func TestCommandsWhileBusy(t *testing.T) {
	ctx := context.Background()
	s := session.New(opts(t, t.TempDir(), scripted.Of(scripted.Turn{Content: host.Text("slow"), DelayMs: 30000})))
	defer s.Close()
	if err := s.Prompt(ctx, &host.UserMessage{Content: host.Text("go")}, session.Reject); err != nil {
		t.Fatal(err)
	}
	if err := s.Prompt(ctx, &host.UserMessage{Content: host.Text("again")}, session.Reject); !errors.Is(err, session.ErrBusy) {
		t.Fatalf("prompt: %v", err)
	}
	if err := s.Prompt(ctx, &host.UserMessage{Content: host.Text("again")}, "sideways"); err == nil {
		t.Fatal("a bad streaming behavior was accepted")
	}
	if err := s.NewSession(ctx, ""); !errors.Is(err, session.ErrBusy) {
		t.Fatalf("new: %v", err)
	}
	if err := s.Switch(ctx, "x"); !errors.Is(err, session.ErrBusy) {
		t.Fatalf("switch: %v", err)
	}
	if _, err := s.ForkAt(ctx, "x"); !errors.Is(err, session.ErrBusy) {
		t.Fatalf("fork: %v", err)
	}
	if err := s.Prompt(ctx, &host.UserMessage{Content: host.Text("later")}, session.FollowUp); err != nil {
		t.Fatal(err)
	}
	if st := s.State(); !st.IsStreaming || st.PendingMessageCount != 1 {
		t.Fatalf("state %+v", st)
	}
	s.Abort()
	s.Wait(ctx)
	if s.Busy() {
		t.Fatal("busy after abort")
	}
}

// An abort that comes right after Prompt returned, before the agent has
// begun the run (Prompt starts it in the background), still aborts it:
// the model's ten-minute wait is cut short and the run ends aborted. Each
// round aborts at another moment of the run's start.
func TestAbortRightAfterPrompt(t *testing.T) {
	for i := range 24 {
		s := session.New(opts(t, t.TempDir(), scripted.Of(scripted.Turn{Content: host.Text("slow"), DelayMs: 600_000})))
		if err := s.Prompt(context.Background(), &host.UserMessage{Content: host.Text("go")}, session.Reject); err != nil {
			t.Fatal(err)
		}
		for range i % 4 {
			goruntime.Gosched()
		}
		s.Abort()
		// A minute only tells a lost abort (ten minutes) from a slow
		// machine.
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		err := s.Wait(ctx)
		cancel()
		if errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("round %d: the abort was lost: the run still waits for the model", i)
		}
		msgs := s.Messages()
		last, ok := msgs[len(msgs)-1].(*host.AssistantMessage)
		if !ok || last.StopReason != host.StopReasonAborted {
			t.Fatalf("round %d: the run ended with %s, want an aborted assistant message", i, roles(msgs))
		}
		s.Close()
	}
}

// Without a store (--no-session) every command works in memory, fork
// included, and nothing is written.
func TestEphemeralSession(t *testing.T) {
	ctx := context.Background()
	o := opts(t, t.TempDir(), scripted.Of(textTurn("one"), textTurn("two")))
	o.Store = nil
	s := session.New(o)
	defer s.Close()
	prompt(t, s, "first")
	prompt(t, s, "second")
	if s.State().SessionFile != "" {
		t.Fatal("an ephemeral session has a file")
	}
	points := s.ForkPoints()
	if len(points) != 2 {
		t.Fatalf("%+v", points)
	}
	if text, err := s.ForkAt(ctx, points[1].EntryID); err != nil || text != "second" || roles(s.Messages()) != "user,assistant" {
		t.Fatalf("%q %v %s", text, err, roles(s.Messages()))
	}
	if err := s.Switch(ctx, "x"); err == nil {
		t.Fatal("switch without a store succeeded")
	}
	if _, err := s.SetModel(ctx, "nope", "nope"); err == nil {
		t.Fatal("an unknown model was accepted")
	}
}

// set_model records a model_change entry pi reads; the state names the
// model.
func TestSetModelRecorded(t *testing.T) {
	ctx := context.Background()
	m := scripted.Of(textTurn("hi"))
	o := opts(t, t.TempDir(), m)
	o.Models = []session.Model{{Info: host.ModelInfo{API: "scripted", Provider: "scripted", ID: "scripted-\"1\""}, Model: m}}
	s := session.New(o)
	defer s.Close()
	prompt(t, s, "hello")
	if _, err := s.SetModel(ctx, "scripted", "scripted-\"1\""); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(s.State().SessionFile)
	tr, err := session.Decode(data)
	if err != nil || len(tr.Warnings) > 0 {
		t.Fatalf("%v %v", err, tr.Warnings)
	}
	last := tr.Entries[len(tr.Entries)-1]
	var mc struct{ Provider, ModelID string }
	json.Unmarshal(last.Raw, &mc)
	if last.Type != session.TypeModelChange || mc.ModelID != "scripted-\"1\"" || s.State().Model.Info.ID != mc.ModelID {
		t.Fatalf("%s", last.Raw)
	}
}

// A switch that fails (the other session is held) leaves the session
// where it was.
func TestSwitchFailureKeepsSession(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	other := session.New(opts(t, dir, scripted.Of(textTurn("other"))))
	defer other.Close()
	prompt(t, other, "held elsewhere")
	s := session.New(opts(t, dir, scripted.Of(textTurn("mine"))))
	defer s.Close()
	prompt(t, s, "mine")
	before := s.State()
	var le *session.LockedError
	if err := s.Switch(ctx, other.State().SessionID); !errors.As(err, &le) {
		t.Fatalf("switch: %v", err)
	}
	after := s.State()
	if after.SessionID != before.SessionID || after.SessionFile != before.SessionFile || roles(s.Messages()) != "user,assistant" {
		t.Fatalf("before %+v\nafter %+v", before, after)
	}
}
