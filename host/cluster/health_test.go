package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/wasmagent/wasmagent/host/serve"
)

// When JetStream goes away, requests fail with 503 and the reason, and
// Ready says why; nothing is stored half.
func TestJetStreamUnavailableIs503(t *testing.T) {
	// Its own server: it runs beside the others, which mostly wait
	// (RATIONALE.md, "Why is make test shaped this way?").
	t.Parallel()
	s, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: -1, JetStream: true, StoreDir: t.TempDir(), NoLog: true, NoSigs: true})
	if err != nil {
		t.Fatal(err)
	}
	go s.Start()
	if !s.ReadyForConnections(10 * time.Second) {
		t.Fatal("nats server did not start")
	}
	// The requests below wait, each, for JetStream's answer until the
	// client's default timeout (5 s: 17 s in all); what is tested is what
	// they answer then, so this connection gives up after 1 s.
	a := startAPIHostOn(t, shortTimeoutConn(t, s.ClientURL(), time.Second), nil, serve.Quota{})
	id := createdID(t, a.must(201, "", "POST", "/v1/sessions", `{}`))
	if err := a.svc.Ready(context.Background()); err != nil {
		t.Fatalf("ready: %v", err)
	}
	s.Shutdown()
	s.WaitForShutdown()
	code, body := a.do("", "POST", "/v1/sessions/"+id+"/prompt", `{"message":"hi"}`)
	if code != http.StatusServiceUnavailable || !strings.Contains(string(body), "JetStream is unavailable") {
		t.Errorf("prompt without JetStream: %d %s", code, body)
	}
	code, body = a.do("", "POST", "/v1/sessions", `{}`)
	if code != http.StatusServiceUnavailable {
		t.Errorf("create without JetStream: %d %s", code, body)
	}
	if err := a.svc.Ready(context.Background()); !errors.Is(err, ErrUnavailable) {
		t.Errorf("ready without JetStream: %v", err)
	}
}

// Deleting a session ends the event streams open on it, on every host,
// after the events they had not yet read.
func TestDeleteEndsEventStreams(t *testing.T) {
	url := startNATS(t)
	a := startAPIHost(t, url, nil, serve.Quota{})
	b := startAPIHost(t, url, nil, serve.Quota{})
	id := createdID(t, a.must(201, "", "POST", "/v1/sessions", `{}`))
	a.must(202, "", "POST", "/v1/sessions/"+id+"/prompt", `{"message":"hi"}`)
	b.sse("", id, "", "agent_end")
	st, err := b.svc.Events(context.Background(), serve.Caller{Owner: serve.LocalOwner}, id, "")
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	a.must(204, "", "DELETE", "/v1/sessions/"+id, "")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for {
		_, err := st.Next(ctx)
		if errors.Is(err, serve.ErrGone) {
			break
		}
		if err != nil {
			t.Fatalf("the stream ended with %v, not ErrGone", err)
		}
	}
	b.must(404, "", "GET", "/v1/sessions/"+id+"/events", "")
}

// A draining host refuses new sessions and runs (503), lets its runs end
// within the deadline, and aborts those that do not (the calls cut short
// recorded as interrupted); the session is then free for another host.
func TestDrain(t *testing.T) {
	url := startNATS(t)
	a := startAPIHost(t, url, nil, serve.Quota{})
	id := createdID(t, a.must(201, "", "POST", "/v1/sessions", `{}`))
	a.must(202, "", "POST", "/v1/sessions/"+id+"/prompt", `{"message":"long"}`)
	waitStreaming(t, a, "", id, true)
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	if err := a.svc.Drain(ctx); err == nil {
		t.Fatal("a drain cut short by its deadline reported nothing")
	}
	a.must(503, "", "POST", "/v1/sessions", `{}`)
	a.must(503, "", "POST", "/v1/sessions/"+id+"/prompt", `{"message":"more"}`)
	// Another host takes the session's next prompt.
	b := startAPIHost(t, url, nil, serve.Quota{})
	var info serve.SessionInfo
	json.Unmarshal(b.must(200, "", "GET", "/v1/sessions/"+id, ""), &info)
	b.must(202, "", "POST", "/v1/sessions/"+id+"/prompt", `{"message":"again"}`)
	b.sse("", id, info.LastEventID, "agent_end")
	all := string(b.must(200, "", "GET", "/v1/sessions/"+id+"/messages", ""))
	if !strings.Contains(all, "Tool call interrupted") || !strings.Contains(all, "done: again") {
		t.Errorf("after the drain: %s", all)
	}
}

// shortTimeoutConn is urlConn with JetStream requests that carry no
// deadline of their own bounded by d instead of the client's default.
func shortTimeoutConn(t *testing.T, url string, d time.Duration) *Conn {
	t.Helper()
	opts, err := connectOptions(ConnectConfig{URL: url})
	if err != nil {
		t.Fatal(err)
	}
	nc, err := nats.Connect(url, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	js, err := jetstream.New(nc, jetstream.WithDefaultTimeout(d))
	if err != nil {
		t.Fatal(err)
	}
	return &Conn{nc: nc, js: js}
}
