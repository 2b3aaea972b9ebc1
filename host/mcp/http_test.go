package mcp_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wasmagent/wasmagent/host"
	"github.com/wasmagent/wasmagent/host/hosttest"
	"github.com/wasmagent/wasmagent/host/mcp"
)

const token = "0123456789abcdef0123456789abcdef"

// bearer adds a token to every request of the SDK's HTTP client.
type bearer struct{ tok string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.tok)
	return http.DefaultTransport.RoundTrip(r)
}

// The official client lists and calls over streamable HTTP when it
// carries the token; without it, or with a wrong one, it gets nowhere.
func TestHTTPToken(t *testing.T) {
	srv := newServer(t, &host.ToolRunner{Tools: []host.Tool{hosttest.Echo("echo")}})
	ts := httptest.NewServer(srv.Handler(mcp.HTTPOptions{Token: token}))
	defer ts.Close()
	connectHTTP := func(tok string) (*sdk.ClientSession, error) {
		c := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil)
		return c.Connect(context.Background(), &sdk.StreamableClientTransport{Endpoint: ts.URL, HTTPClient: &http.Client{Transport: bearer{tok}}, MaxRetries: -1}, nil)
	}
	cs, err := connectHTTP(token)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if res := call(t, cs, "echo", map[string]any{"a": 1}); res.IsError || text(res) != `{"a":1}` {
		t.Fatalf("echo over HTTP: %q", text(res))
	}
	for _, tok := range []string{"", "wrong", token + "x", token[:len(token)-1]} {
		if cs, err := connectHTTP(tok); err == nil {
			cs.Close()
			t.Errorf("token %q was accepted", tok)
		}
	}
}

// Browser origins other than the allowed ones are refused (403); a
// request without Origin, an allowed origin, and a loopback page calling
// a loopback server are served. Bodies over the bound get 413.
func TestHTTPOriginAndBody(t *testing.T) {
	srv := newServer(t, &host.ToolRunner{Tools: []host.Tool{hosttest.Echo("echo")}})
	h := srv.Handler(mcp.HTTPOptions{AllowedOrigins: []string{"https://app.example.com"}, MaxBodyBytes: 1024})
	init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`
	for _, c := range []struct {
		name, host, origin, body string
		want                     int
	}{
		{"no origin", "127.0.0.1:8377", "", init, 200},
		{"allowed origin", "127.0.0.1:8377", "https://app.example.com", init, 200},
		{"loopback page", "localhost:8377", "http://localhost:3000", init, 200},
		{"foreign page", "127.0.0.1:8377", "https://evil.example", init, 403},
		{"null origin", "127.0.0.1:8377", "null", init, 403},
		{"loopback page, public host", "mcp.example.com:443", "http://localhost:3000", init, 403},
		{"body too large", "127.0.0.1:8377", "", `{"jsonrpc":"2.0","id":1,"method":"x","params":{"p":"` + strings.Repeat("x", 2000) + `"}}`, 413},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := httptest.NewRequest("POST", "/", strings.NewReader(c.body))
			r.Host = c.host
			r.RemoteAddr = "127.0.0.1:5555"
			r.Header.Set("Content-Type", "application/json")
			r.Header.Set("Accept", "application/json, text/event-stream")
			if c.origin != "" {
				r.Header.Set("Origin", c.origin)
			}
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			if w.Code != c.want {
				t.Fatalf("status %d, want %d: %s", w.Code, c.want, w.Body.String())
			}
		})
	}
}

func TestIsLoopback(t *testing.T) {
	for host, want := range map[string]bool{"localhost": true, "LocalHost": true, "127.0.0.1": true, "127.8.9.1": true, "::1": true,
		"0.0.0.0": false, "": false, "::": false, "192.168.1.2": false, "localhost.evil.com": false, "example.com": false} {
		if got := mcp.IsLoopback(host); got != want {
			t.Errorf("IsLoopback(%q) = %v", host, got)
		}
	}
}

// An idle session ends after SessionTimeout: its id is then unknown (404),
// and the client must start again.
func TestHTTPSessionExpires(t *testing.T) {
	srv := newServer(t, &host.ToolRunner{Tools: []host.Tool{hosttest.Echo("echo")}})
	ts := httptest.NewServer(srv.Handler(mcp.HTTPOptions{SessionTimeout: 50 * time.Millisecond}))
	defer ts.Close()
	post := func(session, body string) *http.Response {
		r, _ := http.NewRequest("POST", ts.URL+"/mcp", strings.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("Accept", "application/json, text/event-stream")
		r.Header.Set("MCP-Protocol-Version", "2025-06-18")
		if session != "" {
			r.Header.Set("Mcp-Session-Id", session)
		}
		res, err := http.DefaultClient.Do(r)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
		return res
	}
	res := post("", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`)
	session := res.Header.Get("Mcp-Session-Id")
	if res.StatusCode != 200 || session == "" {
		t.Fatalf("initialize: %d, session %q", res.StatusCode, session)
	}
	// Each request makes the session busy again: ask seldom, with gaps
	// well over the timeout.
	for deadline := time.Now().Add(20 * time.Second); ; {
		time.Sleep(250 * time.Millisecond)
		if post(session, `{"jsonrpc":"2.0","id":2,"method":"ping"}`).StatusCode == http.StatusNotFound {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the idle session never expired")
		}
	}
}

// The auth scheme is matched without regard to case (RFC 7235 2.1), the
// token exactly; anything else is 401.
func TestHTTPAuthorizationHeader(t *testing.T) {
	srv := newServer(t, &host.ToolRunner{Tools: []host.Tool{hosttest.Echo("echo")}})
	h := srv.Handler(mcp.HTTPOptions{Token: token})
	init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`
	for header, want := range map[string]int{
		"Bearer " + token:                  200,
		"bearer " + token:                  200,
		"BEARER " + token:                  200,
		"bEaReR " + token:                  200,
		"Bearer  " + token:                 200, // 1*SP
		"Bearer":                           401,
		"Bearer ":                          401,
		"Bearer" + token:                   401,
		"Basic " + token:                   401,
		"Bearerx " + token:                 401,
		"Bearer " + token + "x":            401,
		"Bearer " + strings.ToUpper(token): 401,
		"":                                 401,
	} {
		r := httptest.NewRequest("POST", "/", strings.NewReader(init))
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("Accept", "application/json, text/event-stream")
		if header != "" {
			r.Header.Set("Authorization", header)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Code != want {
			t.Errorf("Authorization %q: status %d, want %d: %s", header, w.Code, want, w.Body.String())
		}
	}
}
