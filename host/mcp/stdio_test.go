package mcp_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/wasmagent/wasmagent/host"
	"github.com/wasmagent/wasmagent/host/hosttest"
)

// Bad lines on stdio each get a JSON-RPC error, with the request's id when
// it has one, and the session goes on: a client ends the server only by
// closing its input, and then every request read is answered first.
func TestMalformedLines(t *testing.T) {
	srv := newServer(t, &host.ToolRunner{Tools: []host.Tool{hosttest.Echo("echo")}})
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`garbage{`,
		`[{"jsonrpc":"2.0","id":9,"method":"tools/list"}]`,
		`{"id":"x","method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":3,"method":"` + strings.Repeat("m", 300) + `"}`,
		`"just a string"`,
		``,
		`{"jsonrpc":"2.0","id":4,"method":"no/such/method"}`,
		`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"echo","arguments":{"a":1}}}`,
		`{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"echo","arguments":"not an object"}}`,
		`{"jsonrpc":"2.0","id":7,"method":"tools/list"}`,
	}, "\n") + "\n"
	// A 200-byte bound turns the long line into an error too.
	var out strings.Builder
	done := make(chan error, 1)
	go func() { done <- srv.ServeStdio(context.Background(), strings.NewReader(in), &out, 200) }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("ServeStdio did not return at the end of its input")
	}
	byID := map[string]map[string]any{}
	var nullErrors []string
	sc := bufio.NewScanner(strings.NewReader(out.String()))
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("the server wrote a line that is not JSON: %q", sc.Text())
		}
		if m["jsonrpc"] != "2.0" {
			t.Fatalf("not JSON-RPC 2.0: %q", sc.Text())
		}
		id, _ := json.Marshal(m["id"])
		if string(id) == "null" {
			nullErrors = append(nullErrors, m["error"].(map[string]any)["message"].(string))
			continue
		}
		byID[string(id)] = m
	}
	if len(nullErrors) != 4 { // garbage, batch, too long, a string
		t.Errorf("errors without id = %q, want 4", nullErrors)
	}
	errCode := func(id string) float64 {
		e, _ := byID[id]["error"].(map[string]any)
		c, _ := e["code"].(float64)
		return c
	}
	if errCode(`"x"`) != -32600 {
		t.Errorf(`no "jsonrpc": %v`, byID[`"x"`])
	}
	if errCode("4") != -32601 {
		t.Errorf("unknown method: %v", byID["4"])
	}
	if r, _ := byID["5"]["result"].(map[string]any); r == nil || r["isError"] == true {
		t.Errorf("echo: %v", byID["5"])
	}
	if byID["6"]["error"] == nil && byID["6"]["result"].(map[string]any)["isError"] != true {
		t.Errorf("arguments not an object: %v", byID["6"])
	}
	if byID["7"]["result"] == nil {
		t.Errorf("tools/list after the bad lines: %v", byID["7"])
	}
}

// A client that stops reading does not stop the server from ending when
// its context does.
func TestServeStdioStopsWithContext(t *testing.T) {
	srv := newServer(t, &host.ToolRunner{Tools: []host.Tool{hosttest.Echo("echo")}})
	r, w := io.Pipe()
	defer w.Close()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.ServeStdio(ctx, r, io.Discard, 0) }()
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("ServeStdio did not return when its context ended")
	}
}
