package cluster

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/wasmagent/wasmagent/host"
	"github.com/wasmagent/wasmagent/host/hosttest"
	"github.com/wasmagent/wasmagent/host/scripted"
	"github.com/wasmagent/wasmagent/host/session"
)

// startNATS runs a one-node JetStream server on loopback for the test.
func startNATS(t testing.TB) string {
	t.Helper()
	return startNATSWith(t, 0)
}

// startNATSWith is startNATS with a message size bound (0: the server's
// default, 1 MiB).
func startNATSWith(t testing.TB, maxPayload int32) string {
	t.Helper()
	s, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: -1, JetStream: true, StoreDir: t.TempDir(), NoLog: true, NoSigs: true, MaxPayload: maxPayload})
	if err != nil {
		t.Fatal(err)
	}
	go s.Start()
	if !s.ReadyForConnections(10 * time.Second) {
		t.Fatal("nats server did not start")
	}
	t.Cleanup(s.Shutdown)
	return s.ClientURL()
}

// urlConn connects to url as the service does.
func urlConn(t testing.TB, url string) *Conn {
	t.Helper()
	c, err := Connect(ConnectConfig{URL: url})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

func connect(t testing.TB, url string) jetstream.JetStream {
	t.Helper()
	nc, err := nats.Connect(url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	return js
}

// toolCalls is how many slow tool calls testModel asks for after each
// user message before it answers "done".
const toolCalls = 2

// testModel decides each turn from the transcript alone, so that a
// session continued on another host (with a model of its own) goes on
// where it was: after a user message it calls the tool "slow" toolCalls
// times, one call per turn, then answers "done: <the user's text>".
func testModel() host.Model {
	return host.ModelFunc(func(ctx context.Context, req *host.Request, emit func(host.AssistantMessageEvent)) *host.AssistantMessage {
		results, user := 0, ""
		for _, m := range req.Messages {
			switch m := m.(type) {
			case *host.UserMessage:
				results, user = 0, m.Content.TextOf()
			case *host.ToolResultMessage:
				results++
			}
		}
		turn := scripted.Turn{Content: host.Text("done: " + user)}
		if results < toolCalls {
			args, _ := json.Marshal(map[string]any{"n": results, "for": user})
			id := fmt.Sprintf("call_%d_%x", results, len(req.Messages))
			turn = scripted.Turn{Content: host.Contents{host.ToolCall{ID: id, Name: "slow", Arguments: args}}}
		}
		return scripted.Of(turn).Stream(ctx, req, emit)
	})
}

// slowTool answers after d, or after a minute for a call made for the
// prompt "long" (or when aborted).
func slowTool(d time.Duration) host.Tool {
	return hosttest.Tool("slow", "", func(ctx context.Context, id string, args json.RawMessage, _ host.UpdateFunc) (host.ToolResult, error) {
		var a struct{ For string }
		json.Unmarshal(args, &a)
		if a.For == "long" {
			d = time.Minute
		}
		select {
		case <-time.After(d):
		case <-ctx.Done():
			return host.ToolResult{}, ctx.Err()
		}
		return host.ToolResult{Content: host.Text("slept for " + string(args))}, nil
	})
}

func testAgent(toolDelay time.Duration) session.Options {
	return session.Options{Agent: host.AgentOptions{Model: testModel(), Tools: []host.Tool{slowTool(toolDelay)}}}
}

func testOptions(toolDelay time.Duration) func(context.Context, string) (session.Options, string, error) {
	return func(context.Context, string) (session.Options, string, error) {
		return testAgent(toolDelay), "test", nil
	}
}

// createSession stores an empty session and returns its id.
func createSession(t testing.TB, store session.Store, id string) {
	t.Helper()
	h := session.Header{Type: session.TypeSession, Version: session.Version, ID: id, Timestamp: "2026-12-01T10:00:00.000Z", Cwd: "/w"}
	l, err := store.Create(context.Background(), h, nil)
	if err != nil {
		t.Fatal(err)
	}
	l.Close()
}

// eventType returns an event's "type".
func eventType(data []byte) string {
	var v struct {
		Type string `json:"type"`
	}
	json.Unmarshal(data, &v)
	return v.Type
}

// collect reads session id's events until stop says so or d passes.
func collect(t testing.TB, h *member, id string, after uint64, d time.Duration, stop func([]Event) bool) []Event {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	var got []Event
	errDone := fmt.Errorf("done")
	err := h.events(ctx, id, after, func(e Event) error {
		got = append(got, e)
		if stop(got) {
			return errDone
		}
		return nil
	})
	if err != errDone {
		types := make([]string, len(got))
		for i, e := range got {
			types[i] = eventType(e.Data)
		}
		t.Fatalf("events of %s: %v (after %d events: %s)", id, err, len(got), strings.Join(types, " "))
	}
	return got
}

// agentEnds counts agent_end events.
func agentEnds(n int) func([]Event) bool {
	return func(es []Event) bool {
		c := 0
		for _, e := range es {
			if eventType(e.Data) == "agent_end" {
				c++
			}
		}
		return c >= n
	}
}
