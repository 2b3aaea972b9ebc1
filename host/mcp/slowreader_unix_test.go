//go:build unix

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
	"syscall"
	"testing"
	"time"

	"github.com/wasmagent/wasmagent/host"
	"github.com/wasmagent/wasmagent/host/hosttest"
	"github.com/wasmagent/wasmagent/host/mcp"
)

// A client that reads slowly, but reads, gets an answer larger than it
// can read within WriteTimeout: the timeout bounds the time without
// progress, not the answer's.
func TestHTTPSlowReaderGetsLargeAnswer(t *testing.T) {
	big := strings.Repeat("y", 500<<10)
	tool := hosttest.Tool("big", "", func(context.Context, string, json.RawMessage, host.UpdateFunc) (host.ToolResult, error) {
		return host.ToolResult{Content: host.Text(big)}, nil
	})
	srv := newServer(t, &host.ToolRunner{Tools: []host.Tool{tool}})
	addr := serveBounded(t, srv, mcp.HTTPOptions{WriteTimeout: 2 * time.Second}, nil)
	d := &net.Dialer{Control: func(_, _ string, c syscall.RawConn) error {
		return c.Control(func(fd uintptr) { syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 8<<10) })
	}}
	conn, err := d.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	r := bufio.NewReader(conn)
	post := func(session, body string) *http.Response {
		fmt.Fprintf(conn, "POST /mcp HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2025-06-18\r\n", addr)
		if session != "" {
			fmt.Fprintf(conn, "Mcp-Session-Id: %s\r\n", session)
		}
		fmt.Fprintf(conn, "Content-Length: %d\r\n\r\n%s", len(body), body)
		res, err := http.ReadResponse(r, nil)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	res := post("", initBody)
	io.Copy(io.Discard, res.Body)
	res.Body.Close()
	res = post(res.Header.Get("Mcp-Session-Id"), `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"big","arguments":{}}}`)
	defer res.Body.Close()
	// 8 KiB every 40 ms at most: 200 KB/s, so the 500 KiB answer takes
	// longer than the timeout (64 reads: 2.56 s at least), each 32 KiB
	// piece a twelfth of it: a loaded machine that holds the reader for
	// a while (300 ms did, once) does not look like a stopped one.
	var got strings.Builder
	buf := make([]byte, 8<<10)
	for {
		time.Sleep(40 * time.Millisecond)
		n, err := res.Body.Read(buf)
		got.Write(buf[:n])
		if strings.Contains(got.String(), big) {
			return
		}
		if err != nil {
			t.Fatalf("the answer ended after %d bytes: %v", got.Len(), err)
		}
	}
}
