package cli

import (
	"bufio"
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/wasmagent/wasmagent/internal/connlimit"
)

// The servers of serve and mcp --http hold a bounded number of
// connections: past it a client gets a 503 that names the bound (on the
// old main every connection was held, idle ones for 2 minutes, until
// the process ran out of descriptors). connlimit's tests check the
// bounds themselves; this one that listen applies them.
func TestListenBoundsConnections(t *testing.T) {
	old := listenLimits
	listenLimits = connlimit.Limits{Total: 2, PerAddr: 2}
	t.Cleanup(func() { listenLimits = old })
	ln, err := listen("--addr", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hs := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "ok") })}
	go hs.Serve(ln)
	t.Cleanup(func() { hs.Close() })
	status := func() (net.Conn, int, string) {
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		c.SetDeadline(time.Now().Add(30 * time.Second)) // a safety bound
		fmt.Fprint(c, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		bufio.NewReader(resp.Body).WriteTo(&b)
		return c, resp.StatusCode, b.String()
	}
	for range 2 {
		if _, code, body := status(); code != 200 {
			t.Fatalf("a connection within the bound: %d %s", code, body)
		}
	}
	if _, code, body := status(); code != 503 || !strings.Contains(body, "--addr") || !strings.Contains(body, "2 connections") {
		t.Fatalf("a 3rd connection: %d %q, want a 503 naming the server and the bound", code, body)
	}
}
