package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wasmagent/wasmagent/host"
	"github.com/wasmagent/wasmagent/host/hosttest"
	"github.com/wasmagent/wasmagent/host/scripted"
	"github.com/wasmagent/wasmagent/host/session"
)

// capturing remembers the Logs its Store created, so that a test can
// pause their host.
type capturing struct {
	*Store
	mu   sync.Mutex
	logs []*Log
}

func (c *capturing) Create(ctx context.Context, h session.Header, entries []session.Entry) (session.Log, error) {
	l, err := c.Store.Create(ctx, h, entries)
	if err == nil {
		c.mu.Lock()
		c.logs = append(c.logs, l.(*Log))
		c.mu.Unlock()
	}
	return l, err
}

// The session service runs on the JetStream store unchanged: host a runs
// a session whose tool hangs and stops renewing (it paused); host b opens
// the session once the lease expired, records the hung call as
// interrupted, and finishes the run; when host a wakes up, its tool's
// result is refused, and the transcript holds every message once.
func TestSessionFailover(t *testing.T) {
	a, b := hosts(t, time.Second)
	ca := &capturing{Store: a}
	ctx := context.Background()
	started, release := make(chan struct{}), make(chan struct{})
	oa := session.Options{
		Store: ca,
		Cwd:   "/w",
		Agent: host.AgentOptions{
			Model: scripted.Of(scripted.Turn{Content: host.Contents{host.ToolCall{ID: "slow1", Name: "slow", Arguments: json.RawMessage(`{}`)}}}),
			Tools: []host.Tool{hosttest.Tool("slow", "", func(context.Context, string, json.RawMessage, host.UpdateFunc) (host.ToolResult, error) {
				close(started)
				<-release
				return host.ToolResult{Content: host.Text("late")}, nil
			})},
		},
	}
	sa := session.New(oa)
	if err := sa.Prompt(ctx, &host.UserMessage{Content: host.Text("go")}, session.Reject); err != nil {
		t.Fatal(err)
	}
	<-started
	id := sa.State().SessionID
	ca.mu.Lock()
	ca.logs[0].lease.stopRenewing() // host a pauses
	ca.mu.Unlock()

	var warned []string
	ob := session.Options{Store: b, Cwd: "/w",
		Agent: host.AgentOptions{Model: scripted.Of(scripted.Turn{Content: host.Text("finished")}), Tools: []host.Tool{hosttest.Echo("slow")}},
		Warn:  func(w string) { warned = append(warned, w) }}
	var sb *session.Session
	var err error
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		var le *session.LockedError
		if sb, err = session.Open(ctx, ob, id); !errors.As(err, &le) || time.Now().After(deadline) {
			break
		}
	}
	if err != nil {
		t.Fatal(err)
	}
	defer sb.Close()
	if err := sb.Continue(ctx); err != nil {
		t.Fatal(err)
	}
	if err := sb.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	if len(warned) == 0 || !strings.Contains(strings.Join(warned, "\n"), "slow1") {
		t.Fatalf("no warning about the interrupted call: %q", warned)
	}

	close(release) // host a wakes up: its tool result must not land
	sa.Wait(ctx)
	sa.Close()

	tr, err := b.Load(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	msgs := tr.View(tr.Leaf()).Messages
	var roles []string
	for _, m := range msgs {
		roles = append(roles, m.MessageRole())
	}
	if strings.Join(roles, ",") != "user,assistant,toolResult,assistant" {
		t.Fatalf("roles %v", roles)
	}
	if r := msgs[2].(*host.ToolResultMessage); r.Content.TextOf() != session.InterruptedText {
		t.Fatalf("tool result %q", r.Content.TextOf())
	}
	if got := msgs[3].(*host.AssistantMessage).Content.TextOf(); got != "finished" {
		t.Fatalf("last message %q", got)
	}
}
