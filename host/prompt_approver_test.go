package host_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/wasmagent/wasmagent/host"
	"github.com/wasmagent/wasmagent/host/hosttest"
)

func question(tool string) host.Question {
	return host.Question{Hook: "policy", ToolCall: host.ToolCall{ID: "c1", Name: tool}, Args: json.RawMessage(`{"path":"a"}`), Text: "Write a?"}
}

// waitFor waits until out shows n prompts.
func waitFor(t *testing.T, out *hosttest.Buffer, n int) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); strings.Count(out.String(), "allow?") < n; {
		if time.Now().After(deadline) {
			t.Fatalf("no prompt: %q", out.String())
		}
		time.Sleep(time.Millisecond)
	}
}

func TestPromptApprover(t *testing.T) {
	r, w := io.Pipe()
	defer w.Close()
	out := &hosttest.Buffer{}
	p := &host.PromptApprover{In: r, Out: out}
	ask := func(tool string, ctx context.Context) (chan bool, chan error) {
		okc, errc := make(chan bool, 1), make(chan error, 1)
		go func() {
			ok, err := p.Approve(ctx, question(tool))
			okc <- ok
			errc <- err
		}()
		return okc, errc
	}
	answer := func(tool, line string, n int) (bool, error) {
		okc, errc := ask(tool, context.Background())
		waitFor(t, out, n)
		io.WriteString(w, line+"\n")
		return <-okc, <-errc
	}
	if ok, err := answer("write", "y", 1); !ok || err != nil {
		t.Fatalf("yes: %v %v", ok, err)
	}
	if ok, err := answer("write", "no", 2); ok || err != nil {
		t.Fatalf("no: %v %v", ok, err)
	}
	if ok, err := answer("write", "  What?", 3); ok || err != nil {
		t.Fatalf("anything else declines: %v %v", ok, err)
	}
	if ok, err := answer("write", "Always", 4); !ok || err != nil {
		t.Fatalf("always: %v %v", ok, err)
	}
	// Always for write: asked no more; edit is still asked.
	if ok, err := p.Approve(context.Background(), question("write")); !ok || err != nil || strings.Count(out.String(), "allow?") != 4 {
		t.Fatalf("always did not stick: %v %v", ok, err)
	}
	// An unanswered question is declined; the next question waits for a
	// line of its own.
	ctx, cancel := context.WithCancel(context.Background())
	okc, errc := ask("edit", ctx)
	waitFor(t, out, 5)
	cancel()
	if ok, err := <-okc, <-errc; ok || !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled: %v %v", ok, err)
	}
	if ok, err := answer("edit", "n", 6); ok || err != nil {
		t.Fatalf("after a cancelled question: %v %v", ok, err)
	}
	// In ends: pending and later questions are declined.
	okc, errc = ask("edit", context.Background())
	waitFor(t, out, 7)
	w.Close()
	if ok, err := <-okc, <-errc; ok || err == nil {
		t.Fatalf("EOF: %v %v", ok, err)
	}
	if ok, err := p.Approve(context.Background(), question("edit")); ok || err == nil {
		t.Fatalf("after EOF: %v %v", ok, err)
	}
}

// Without In, a front end that owns the terminal hands lines over: Answer
// takes a line only while a question waits.
func TestPromptApproverAnswer(t *testing.T) {
	out := &hosttest.Buffer{}
	p := &host.PromptApprover{Out: out}
	if p.Answer("y") {
		t.Fatal("Answer took a line with no question pending")
	}
	okc := make(chan bool, 1)
	go func() {
		ok, _ := p.Approve(context.Background(), question("write"))
		okc <- ok
	}()
	waitFor(t, out, 1)
	for !p.Answer("yes") {
		time.Sleep(time.Millisecond) // the prompt is written just before the question waits
	}
	if !<-okc {
		t.Fatal("yes declined")
	}
}
