package cluster

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/wasmagent/wasmagent/host/serve"
	"github.com/wasmagent/wasmagent/host/session"
)

// apiHost is one host of the cluster behind serve's HTTP API.
type apiHost struct {
	t   *testing.T
	svc *Service
	url string
}

func startAPIHost(t *testing.T, url string, store session.Store, quota serve.Quota, tokens ...string) *apiHost {
	t.Helper()
	return startAPIHostOn(t, urlConn(t, url), store, quota, tokens...)
}

// startAPIHostOn is startAPIHost on a connection the test made.
func startAPIHostOn(t *testing.T, c *Conn, store session.Store, quota serve.Quota, tokens ...string) *apiHost {
	t.Helper()
	svc, err := NewService(context.Background(), c, ServiceOptions{Store: store, Session: testAgent(30 * time.Millisecond), LeaseTTL: 2 * time.Second, ReplyWait: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { svc.Close() })
	o := serve.Options{Backend: svc, Quota: quota, Heartbeat: time.Second}
	for _, tok := range tokens {
		o.Tokens = append(o.Tokens, serve.Token{Name: tok, Hash: sha256.Sum256([]byte(tok))})
	}
	srv, err := serve.New(o)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv.Handler())
	t.Cleanup(ts.Close)
	return &apiHost{t, svc, ts.URL}
}

func (h *apiHost) do(token, method, path, body string) (int, []byte) {
	h.t.Helper()
	req, _ := http.NewRequest(method, h.url+path, strings.NewReader(body))
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		h.t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, data
}

func (h *apiHost) must(status int, token, method, path, body string) []byte {
	h.t.Helper()
	got, data := h.do(token, method, path, body)
	if got != status {
		h.t.Fatalf("%s %s: %d %s, want %d", method, path, got, data, status)
	}
	return data
}

type sseEvent struct{ id, data string }

// sse reads the session's events from after until an event of type
// until. Its deadline only tells a hang from slowness: under the race
// detector on a loaded machine TestBigToolResultKeepsTheRun's run took
// 20 s, the old deadline.
func (h *apiHost) sse(token, id, after, until string) []sseEvent {
	h.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", h.url+"/v1/sessions/"+id+"/events", nil)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if after != "" {
		req.Header.Set("Last-Event-ID", after)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		h.t.Fatal(err)
	}
	defer resp.Body.Close()
	var out []sseEvent
	var cur sseEvent
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "id: "):
			cur.id = line[4:]
		case strings.HasPrefix(line, "data: "):
			cur.data = line[6:]
		case line == "" && cur.data != "":
			out = append(out, cur)
			if eventType([]byte(cur.data)) == until {
				return out
			}
			cur = sseEvent{}
		}
	}
	h.t.Fatalf("events of %s ended before %s (%d events): %v", id, until, len(out), sc.Err())
	return nil
}

func createdID(t *testing.T, data []byte) string {
	var info serve.SessionInfo
	if err := json.Unmarshal(data, &info); err != nil || info.ID == "" {
		t.Fatalf("create answered %s", data)
	}
	return info.ID
}

// Two hosts behind serve's API: a session made on one is prompted on the
// other; its events stream from both, ids and all; another token sees
// nothing of it.
func TestServiceAPI(t *testing.T) {
	t.Run("JetStreamStore", func(t *testing.T) { testServiceAPI(t, func() session.Store { return nil }) })
	dir := t.TempDir()
	t.Run("FileStore", func(t *testing.T) { testServiceAPI(t, func() session.Store { return &session.FileStore{Dir: dir} }) })
}

func testServiceAPI(t *testing.T, store func() session.Store) {
	url := startNATS(t)
	a := startAPIHost(t, url, store(), serve.Quota{}, "alice", "bob")
	b := startAPIHost(t, url, store(), serve.Quota{}, "alice", "bob")
	id := createdID(t, a.must(201, "alice", "POST", "/v1/sessions", `{"name":"first"}`))
	b.must(202, "alice", "POST", "/v1/sessions/"+id+"/prompt", `{"message":"hi"}`)
	onA := a.sse("alice", id, "", "agent_end")
	onB := b.sse("alice", id, "", "agent_end")
	if len(onA) != len(onB) {
		t.Fatalf("%d events on one host, %d on the other", len(onA), len(onB))
	}
	for i := range onA {
		if onA[i] != onB[i] {
			t.Fatalf("event %d differs: %v / %v", i, onA[i], onB[i])
		}
	}
	rest := b.sse("alice", id, onA[3].id, "agent_end")
	if len(rest) != len(onA)-4 || rest[0] != onA[4] {
		t.Fatalf("resumed after %s: %d events, want %d", onA[3].id, len(rest), len(onA)-4)
	}
	var msgs struct{ Messages []json.RawMessage }
	json.Unmarshal(a.must(200, "alice", "GET", "/v1/sessions/"+id+"/messages", ""), &msgs)
	if len(msgs.Messages) != 2+2*toolCalls {
		t.Fatalf("%d messages: %s", len(msgs.Messages), msgs.Messages)
	}
	var info serve.SessionInfo
	json.Unmarshal(b.must(200, "alice", "GET", "/v1/sessions/"+id, ""), &info)
	if info.Name != "first" || info.FirstMessage != "hi" || info.LastEventID != onA[len(onA)-1].id {
		t.Errorf("info %+v", info)
	}
	for _, h := range []*apiHost{a, b} {
		h.must(404, "bob", "GET", "/v1/sessions/"+id, "")
		h.must(404, "bob", "POST", "/v1/sessions/"+id+"/prompt", `{"message":"hi"}`)
		h.must(404, "bob", "GET", "/v1/sessions/"+id+"/events", "")
		if got := string(h.must(200, "bob", "GET", "/v1/sessions", "")); strings.Contains(got, id) {
			t.Errorf("bob lists %s", got)
		}
	}
	b.must(204, "alice", "DELETE", "/v1/sessions/"+id, "")
	a.must(404, "alice", "GET", "/v1/sessions/"+id, "")
}

// A token lists its own sessions, newest first, with what each holds.
func TestServiceList(t *testing.T) {
	url := startNATS(t)
	a := startAPIHost(t, url, nil, serve.Quota{}, "alice", "bob")
	first := createdID(t, a.must(201, "alice", "POST", "/v1/sessions", `{"name":"one"}`))
	second := createdID(t, a.must(201, "alice", "POST", "/v1/sessions", `{}`))
	a.must(202, "alice", "POST", "/v1/sessions/"+second+"/prompt", `{"message":"hello"}`)
	a.sse("alice", second, "", "agent_end")
	createdID(t, a.must(201, "bob", "POST", "/v1/sessions", `{}`))
	var resp struct{ Sessions []serve.SessionInfo }
	json.Unmarshal(a.must(200, "alice", "GET", "/v1/sessions", ""), &resp)
	list := resp.Sessions
	if len(list) != 2 || list[0].ID != second || list[1].ID != first {
		t.Fatalf("alice lists %+v", list)
	}
	if list[0].FirstMessage != "hello" || list[0].MessageCount != 2+2*toolCalls || list[1].Name != "one" {
		t.Errorf("alice lists %+v", list)
	}
}
