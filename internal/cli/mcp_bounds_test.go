package cli_test

import (
	"context"
	"io"
	"net"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/wasmagent/wasmagent/internal/cli"
)

// A bound of mcp --http that is not positive, does not parse, or is given
// without --http is a usage error naming the flag.
func TestMCPHTTPBoundFlagsChecked(t *testing.T) {
	cfg := scriptedConfig(t, `{"turns":[]}`)
	for _, c := range []struct {
		args []string
		flag string
	}{
		{[]string{"--http", "127.0.0.1:0", "--read-timeout", "0s"}, "--read-timeout"},
		{[]string{"--http", "127.0.0.1:0", "--write-timeout", "-1s"}, "--write-timeout"},
		{[]string{"--http", "127.0.0.1:0", "--idle-timeout", "soon"}, "--idle-timeout"},
		{[]string{"--http", "127.0.0.1:0", "--idle-timeout", "30"}, "--idle-timeout"},
		{[]string{"--http", "127.0.0.1:0", "--max-sessions", "0"}, "--max-sessions"},
		{[]string{"--http", "127.0.0.1:0", "--max-sessions", "many"}, "--max-sessions"},
		{[]string{"--write-timeout", "5s"}, "--write-timeout"},
		{[]string{"--max-sessions", "5"}, "--max-sessions"},
	} {
		var out, errb lockedBuffer
		args := append([]string{"mcp", "--config", cfg}, c.args...)
		code := cli.Main(context.Background(), args, cli.Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb})
		if code != cli.ExitUsage || !strings.Contains(errb.String(), c.flag) || strings.Contains(errb.String(), "serving") {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 naming %s", c.args, code, errb.String(), c.flag)
		}
	}
}

// The bounds given reach the server: --max-sessions caps the sessions,
// --read-timeout cuts off a client that sends nothing, --idle-timeout
// closes a kept-alive connection.
func TestMCPHTTPBoundFlagsApply(t *testing.T) {
	cfg := scriptedConfig(t, `{"turns":[]}`)
	ctx, cancel := context.WithCancel(context.Background())
	var out, errb lockedBuffer
	exited := make(chan int, 1)
	go func() {
		exited <- cli.Main(ctx, []string{"mcp", "--config", cfg, "--http", "127.0.0.1:0",
			"--max-sessions", "1", "--read-timeout", "300ms", "--idle-timeout", "300ms", "--write-timeout", "5s"},
			cli.Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb})
	}()
	defer func() {
		cancel()
		<-exited
	}()
	serving := regexp.MustCompile(`serving streamable HTTP at http://([^/]+)/`)
	var addr string
	for deadline := time.Now().Add(30 * time.Second); addr == ""; time.Sleep(20 * time.Millisecond) {
		if m := serving.FindStringSubmatch(errb.String()); m != nil {
			addr = m[1]
		} else if time.Now().After(deadline) {
			t.Fatalf("the server did not start: %s", errb.String())
		}
	}
	initialize := func() *http.Response {
		req, _ := http.NewRequest("POST", "http://"+addr+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
		return res
	}
	if res := initialize(); res.StatusCode != 200 {
		t.Fatalf("the first session: %d", res.StatusCode)
	}
	if res := initialize(); res.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("a second session past --max-sessions 1: %d, want 503", res.StatusCode)
	}
	for _, name := range []string{"silent", "idle after a request"} {
		conn, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		if name != "silent" {
			io.WriteString(conn, "GET /mcp HTTP/1.1\r\nHost: "+addr+"\r\n\r\n")
		}
		// The defaults (1 and 2 minutes) would hold it far longer.
		conn.SetReadDeadline(time.Now().Add(20 * time.Second))
		_, err = io.Copy(io.Discard, conn)
		conn.Close()
		if ne, ok := err.(net.Error); ok && ne.Timeout() {
			t.Fatalf("%s: the server still held the connection after 20 s", name)
		}
	}
}
