package serve

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/wasmagent/wasmagent/host"
	"github.com/wasmagent/wasmagent/host/eventwire"
	"github.com/wasmagent/wasmagent/host/hosttest"
	"github.com/wasmagent/wasmagent/host/scripted"
	"github.com/wasmagent/wasmagent/host/session"
)

// echoModel answers by what the last message says, so that every session
// of one server gets its own, deterministic conversation:
//
//	"call N [ms]"  → N echo tool calls at once (each sleeping ms), then "done"
//	"slow ms"      → text after ms milliseconds
//	anything else  → the text "ok: " + the prompt
type echoModel struct{}

func (echoModel) Stream(ctx context.Context, req *host.Request, emit func(host.AssistantMessageEvent)) *host.AssistantMessage {
	return scripted.Of(echoTurn(req)).Stream(ctx, req, emit)
}

func (echoModel) ModelInfo() host.ModelInfo {
	return host.ModelInfo{API: "scripted", Provider: "test", ID: "echo"}
}

func echoTurn(req *host.Request) scripted.Turn {
	last := req.Messages[len(req.Messages)-1]
	u, ok := last.(*host.UserMessage)
	if !ok {
		return scripted.Turn{Content: host.Contents{host.TextContent{Text: "done"}}}
	}
	text := u.Content.TextOf()
	var n, ms int
	if k, _ := fmt.Sscanf(text, "call %d %d", &n, &ms); k >= 1 {
		var c host.Contents
		for i := range n {
			c = append(c, host.ToolCall{ID: fmt.Sprintf("c%d", i), Name: "echo", Arguments: json.RawMessage(fmt.Sprintf(`{"i":%d,"ms":%d}`, i, ms))})
		}
		return scripted.Turn{Content: c}
	}
	var size int
	if k, _ := fmt.Sscanf(text, "flood %d %d", &n, &size); k == 2 {
		args := fmt.Sprintf(`{"n":%d,"pad":%q}`, n, strings.Repeat("p", size))
		return scripted.Turn{Content: host.Contents{host.ToolCall{ID: "f", Name: "flood", Arguments: json.RawMessage(args)}}}
	}
	if k, _ := fmt.Sscanf(text, "slow %d", &ms); k == 1 {
		return scripted.Turn{Content: host.Contents{host.TextContent{Text: "slept"}}, DelayMs: ms}
	}
	return scripted.Turn{Content: host.Contents{host.TextContent{Text: "ok: " + text}}}
}

// sleepEcho answers with its arguments after "ms" milliseconds (cut short
// by an abort).
var sleepEcho = hosttest.Tool("echo", "", func(ctx context.Context, _ string, args json.RawMessage, _ host.UpdateFunc) (host.ToolResult, error) {
	var a struct{ MS int }
	json.Unmarshal(args, &a)
	select {
	case <-time.After(time.Duration(a.MS) * time.Millisecond):
	case <-ctx.Done():
		return host.ToolResult{}, ctx.Err()
	}
	return host.ToolResult{Content: host.Text(string(args))}, nil
})

// floodUpdates sends "n" empty partial results, then answers "done".
var floodUpdates = hosttest.Tool("flood", "", func(ctx context.Context, _ string, args json.RawMessage, onUpdate host.UpdateFunc) (host.ToolResult, error) {
	var a struct{ N int }
	json.Unmarshal(args, &a)
	for range a.N {
		onUpdate(json.RawMessage(`{"content":[]}`))
	}
	return host.ToolResult{Content: host.Text("done")}, nil
})

type harness struct {
	t       testing.TB
	root    string
	backend *Local
	server  *Server
	http    *httptest.Server
}

type harnessOpts struct {
	root     string
	tokens   []Token
	quota    Quota
	server   func(*Options)
	wrap     func(http.Handler) http.Handler
	idle     time.Duration      // IdleClose; 0: never (the tests look at live sessions)
	events   eventwire.Options  // what the journals' updates may cost
	maxEvent int                // LocalOptions.MaxEventBytes
	http     func(*http.Server) // sets the test server's timeouts before it starts
}

func newHarness(t testing.TB, ho harnessOpts) *harness {
	t.Helper()
	if ho.root == "" {
		ho.root = t.TempDir()
	}
	m := echoModel{}
	if ho.idle == 0 {
		ho.idle = -1
	}
	b, err := NewLocal(LocalOptions{
		Root:          ho.root,
		NoSync:        true,
		IdleClose:     ho.idle,
		Events:        ho.events,
		MaxEventBytes: ho.maxEvent,
		Session: session.Options{
			Agent:  host.AgentOptions{Model: m, Tools: []host.Tool{sleepEcho, floodUpdates}, SystemPrompt: "test"},
			Models: []session.Model{{Info: m.ModelInfo(), Model: m}},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	o := Options{Backend: b, Tokens: ho.tokens, Quota: ho.quota, Heartbeat: 50 * time.Millisecond}
	if ho.server != nil {
		ho.server(&o)
	}
	s, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	handler := s.Handler()
	if ho.wrap != nil {
		handler = ho.wrap(handler)
	}
	hs := httptest.NewUnstartedServer(handler)
	if ho.http != nil {
		ho.http(hs.Config)
	}
	hs.Start()
	h := &harness{t: t, root: ho.root, backend: b, server: s, http: hs}
	t.Cleanup(h.close)
	return h
}

func (h *harness) close() {
	h.server.Stop()
	h.http.Close()
	h.backend.Close()
}

// do sends a request with token (none when "") and returns the status
// and body.
func (h *harness) do(method, path, token, body string) (int, []byte, http.Header) {
	h.t.Helper()
	return h.doWith(method, path, token, body, nil)
}

// doWith is do with more request headers.
func (h *harness) doWith(method, path, token, body string, headers map[string]string) (int, []byte, http.Header) {
	h.t.Helper()
	req, err := http.NewRequest(method, h.http.URL+path, strings.NewReader(body))
	if err != nil {
		h.t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := h.http.Client().Do(req)
	if err != nil {
		h.t.Fatal(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		h.t.Fatal(err)
	}
	return resp.StatusCode, data, resp.Header
}

// must is do that fails the test unless the status is want.
func (h *harness) must(want int, method, path, token, body string) []byte {
	h.t.Helper()
	code, data, _ := h.do(method, path, token, body)
	if code != want {
		h.t.Fatalf("%s %s: status %d, want %d: %s", method, path, code, want, data)
	}
	return data
}

func (h *harness) create(token string) string {
	h.t.Helper()
	var info SessionInfo
	if err := json.Unmarshal(h.must(201, "POST", "/v1/sessions", token, `{}`), &info); err != nil {
		h.t.Fatal(err)
	}
	return info.ID
}

// sseEvent is one event read from a stream.
type sseEvent struct {
	ID   string
	Time string
	Data string
}

// sseReader reads events from a response body.
type sseReader struct {
	resp *http.Response
	r    *bufio.Reader
}

func (h *harness) openEvents(id, token, lastID string) *sseReader {
	h.t.Helper()
	req, _ := http.NewRequest("GET", h.http.URL+"/v1/sessions/"+id+"/events", nil)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if lastID != "" {
		req.Header.Set("Last-Event-ID", lastID)
	}
	resp, err := h.http.Client().Do(req)
	if err != nil {
		h.t.Fatal(err)
	}
	if resp.StatusCode != 200 {
		data, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		h.t.Fatalf("events: status %d: %s", resp.StatusCode, data)
	}
	return &sseReader{resp: resp, r: bufio.NewReader(resp.Body)}
}

// next returns the next event (skipping comments and retry lines).
func (s *sseReader) next() (sseEvent, error) {
	var ev sseEvent
	for {
		line, err := s.r.ReadString('\n')
		if err != nil {
			return ev, err
		}
		line = strings.TrimSuffix(line, "\n")
		switch {
		case line == "":
			if ev.Data != "" {
				return ev, nil
			}
		case strings.HasPrefix(line, ":"), strings.HasPrefix(line, "retry:"):
		case strings.HasPrefix(line, "id: "):
			ev.ID = line[4:]
		case strings.HasPrefix(line, "time: "):
			ev.Time = line[6:]
		case strings.HasPrefix(line, "data: "):
			if ev.Data != "" {
				return ev, fmt.Errorf("two data lines in one event")
			}
			ev.Data = line[6:]
		default:
			return ev, fmt.Errorf("unexpected line %q", line)
		}
	}
}

func (s *sseReader) close() { s.resp.Body.Close() }

// until reads events until one of type typ, returning all read.
func (s *sseReader) until(t testing.TB, typ string) []sseEvent {
	t.Helper()
	var out []sseEvent
	for {
		ev, err := s.next()
		if err != nil {
			t.Fatalf("after %d events: %v", len(out), err)
		}
		out = append(out, ev)
		if eventType(ev.Data) == typ {
			return out
		}
	}
}

func eventType(data string) string {
	var v struct{ Type string }
	json.Unmarshal([]byte(data), &v)
	return v.Type
}
