package mcp_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/wasmagent/wasmagent/host"
	"github.com/wasmagent/wasmagent/host/hosttest"
	"github.com/wasmagent/wasmagent/host/mcp"
)

const initBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`

// serveBounded serves srv.HTTPServer(o) on a loopback port, its handler
// wrapped by wrap (when not nil), and returns the address.
func serveBounded(t *testing.T, srv *mcp.Server, o mcp.HTTPOptions, wrap func(http.Handler) http.Handler) string {
	t.Helper()
	hs := srv.HTTPServer(o)
	if wrap != nil {
		hs.Handler = wrap(hs.Handler)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go hs.Serve(smallBuffers{ln})
	t.Cleanup(func() { hs.Close() })
	return ln.Addr().String()
}

// smallBuffers gives the server's connections small send buffers, so
// that a client that does not read blocks the server's writes soon.
type smallBuffers struct{ net.Listener }

func (l smallBuffers) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if tc, ok := c.(*net.TCPConn); ok {
		tc.SetWriteBuffer(8 << 10)
	}
	return c, err
}

// closedByServer reads conn until the server closes it, failing the
// test if that takes longer than limit (many times the server's bound).
func closedByServer(t *testing.T, conn net.Conn, limit time.Duration) {
	t.Helper()
	conn.SetReadDeadline(time.Now().Add(limit))
	_, err := io.Copy(io.Discard, conn)
	if ne, ok := err.(net.Error); ok && ne.Timeout() {
		t.Fatalf("the server still held the connection after %s", limit)
	}
}

// Clients that send a request slowly, or not at all, or keep a
// connection idle, are cut off by the server's bounds (on the old main,
// whose `mcp --http` server had no read or idle timeout, each held a
// connection and a goroutine for ever).
func TestHTTPServerCutsSlowClients(t *testing.T) {
	srv := newServer(t, &host.ToolRunner{Tools: []host.Tool{hosttest.Echo("echo")}})
	addr := serveBounded(t, srv, mcp.HTTPOptions{ReadTimeout: 200 * time.Millisecond, IdleTimeout: 200 * time.Millisecond}, nil)
	head := "POST /mcp HTTP/1.1\r\nHost: " + addr + "\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n"
	for name, talk := range map[string]func(net.Conn){
		"silent": func(net.Conn) {},
		"trickled header": func(c net.Conn) {
			for _, b := range []byte(head) {
				if _, err := c.Write([]byte{b}); err != nil {
					return
				}
				time.Sleep(20 * time.Millisecond)
			}
		},
		"stalled body": func(c net.Conn) {
			fmt.Fprintf(c, "%sContent-Length: %d\r\n\r\n%s", head, len(initBody), initBody[:10])
		},
		"idle after a request": func(c net.Conn) {
			fmt.Fprintf(c, "%sContent-Length: %d\r\n\r\n%s", head, len(initBody), initBody)
		},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			conn, err := net.Dial("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			go talk(conn)
			closedByServer(t, conn, 5*time.Second)
		})
	}
}

// A client that stops reading its answers is cut off after WriteTimeout:
// the request's handler returns instead of blocking for ever on a full
// socket (the answer here is far larger than the sockets' buffers, made small).
func TestHTTPWriteDeadline(t *testing.T) {
	big := strings.Repeat("x", 1<<20)
	tool := hosttest.Tool("big", "", func(context.Context, string, json.RawMessage, host.UpdateFunc) (host.ToolResult, error) {
		return host.ToolResult{Content: host.Text(big)}, nil
	})
	srv := newServer(t, &host.ToolRunner{Tools: []host.Tool{tool}})
	var inFlight atomic.Int32
	returned := make(chan struct{}, 16)
	addr := serveBounded(t, srv, mcp.HTTPOptions{WriteTimeout: 200 * time.Millisecond}, func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			inFlight.Add(1)
			defer func() { inFlight.Add(-1); returned <- struct{}{} }()
			h.ServeHTTP(w, r)
		})
	})
	post := func(conn net.Conn, session, body string) {
		fmt.Fprintf(conn, "POST /mcp HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2025-06-18\r\n", addr)
		if session != "" {
			fmt.Fprintf(conn, "Mcp-Session-Id: %s\r\n", session)
		}
		fmt.Fprintf(conn, "Content-Length: %d\r\n\r\n%s", len(body), body)
	}
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	post(conn, "", initBody)
	res, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil || res.StatusCode != 200 {
		t.Fatalf("initialize: %v %v", res, err)
	}
	session := res.Header.Get("Mcp-Session-Id")
	<-returned
	// A fresh connection for the call, never read.
	stuck, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer stuck.Close()
	stuck.(*net.TCPConn).SetReadBuffer(4096)
	post(stuck, session, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"big","arguments":{}}}`)
	select {
	case <-returned:
	case <-time.After(20 * time.Second):
		t.Fatalf("the handler of an answer nobody reads still blocks (%d in flight)", inFlight.Load())
	}
}

// Sessions are bounded: an initialize past MaxSessions gets 503 with
// Retry-After; once a session is deleted, a new one may start.
func TestHTTPSessionCap(t *testing.T) {
	srv := newServer(t, &host.ToolRunner{Tools: []host.Tool{hosttest.Echo("echo")}})
	addr := serveBounded(t, srv, mcp.HTTPOptions{MaxSessions: 2}, nil)
	do := func(method, session, body string) *http.Response {
		r, _ := http.NewRequest(method, "http://"+addr+"/mcp", strings.NewReader(body))
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
	var sessions []string
	for range 2 {
		res := do("POST", "", initBody)
		if res.StatusCode != 200 {
			t.Fatalf("initialize within the cap: %d", res.StatusCode)
		}
		sessions = append(sessions, res.Header.Get("Mcp-Session-Id"))
	}
	res := do("POST", "", initBody)
	if res.StatusCode != http.StatusServiceUnavailable || res.Header.Get("Retry-After") == "" {
		t.Fatalf("initialize past the cap: %d, Retry-After %q", res.StatusCode, res.Header.Get("Retry-After"))
	}
	if res := do("POST", sessions[0], `{"jsonrpc":"2.0","id":2,"method":"ping"}`); res.StatusCode != 200 {
		t.Fatalf("a session within the cap, at the cap: %d", res.StatusCode)
	}
	if res := do("DELETE", sessions[0], ""); res.StatusCode/100 != 2 {
		t.Fatalf("DELETE: %d", res.StatusCode)
	}
	if res := do("POST", "", initBody); res.StatusCode != 200 {
		t.Fatalf("initialize after a session ended: %d", res.StatusCode)
	}
}
