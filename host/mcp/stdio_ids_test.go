package mcp_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"testing"
	"time"

	"github.com/wasmagent/wasmagent/host"
	"github.com/wasmagent/wasmagent/host/hosttest"
)

// reply is one line the server wrote.
type reply struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code int64 `json:"code"`
	} `json:"error"`
}

// A request id reused while its request still runs, or a number that the
// server could not echo exactly, gets -32600 with that id and is not
// served; the running request is still answered once, and the server
// still ends when its input does.
func TestStdioRequestIDs(t *testing.T) {
	release := make(chan struct{})
	started := make(chan struct{}, 1)
	slow := hosttest.Tool("slow", "", func(ctx context.Context, _ string, _ json.RawMessage, _ host.UpdateFunc) (host.ToolResult, error) {
		started <- struct{}{}
		<-release
		return host.ToolResult{Content: host.Text("done")}, nil
	})
	srv := newServer(t, &host.ToolRunner{Tools: []host.Tool{slow, hosttest.Echo("echo")}})
	in, w := io.Pipe()
	out, sw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- srv.ServeStdio(context.Background(), in, sw, 0)
		sw.Close()
	}()
	replies := make(chan reply, 64)
	go func() {
		defer close(replies)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			var r reply
			if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
				t.Errorf("not JSON: %q", sc.Text())
				continue
			}
			replies <- r
		}
	}()
	send := func(lines ...string) {
		for _, l := range lines {
			if _, err := io.WriteString(w, l+"\n"); err != nil {
				t.Fatal(err)
			}
		}
	}
	next := func() reply {
		t.Helper()
		select {
		case r, ok := <-replies:
			if !ok {
				t.Fatal("the output ended early")
			}
			return r
		case <-time.After(20 * time.Second):
			t.Fatal("no reply")
		}
		return reply{}
	}
	send(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	if r := next(); string(r.ID) != `"init"` || r.Result == nil {
		t.Fatalf("initialize: %+v", r)
	}
	send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"slow","arguments":{}}}`)
	<-started
	// While 2 runs: the same id again (as a number and as 2.0), ids the
	// SDK would truncate or round, and ids that are fine.
	bad := []string{`2`, `2.0`, `1.5`, `-0.25`, `1e300`, `9007199254740993`}
	for _, id := range bad {
		send(`{"jsonrpc":"2.0","id":` + id + `,"method":"ping"}`)
	}
	good := []string{`"2"`, `3`, `-4`, `1e2`}
	for _, id := range good {
		send(`{"jsonrpc":"2.0","id":` + id + `,"method":"ping"}`)
	}
	got := map[string][]reply{}
	for range len(bad) + len(good) {
		r := next()
		got[string(r.ID)] = append(got[string(r.ID)], r)
	}
	for _, id := range bad {
		rs := got[id]
		if len(rs) != 1 || rs[0].Error == nil || rs[0].Error.Code != -32600 {
			t.Errorf("id %s: replies %+v, want one -32600 echoing the id", id, rs)
		}
	}
	for id, want := range map[string]string{`"2"`: `"2"`, `3`: `3`, `-4`: `-4`, `1e2`: `100`} {
		if rs := got[want]; len(rs) != 1 || rs[0].Result == nil {
			t.Errorf("id %s: replies %+v, want one result", id, rs)
		}
	}
	// Once answered, an id may be used again.
	send(`{"jsonrpc":"2.0","id":3,"method":"ping"}`)
	if r := next(); string(r.ID) != "3" || r.Result == nil {
		t.Errorf("id 3 used again after its reply: %+v", r)
	}
	w.Close() // end of input while 2 still runs
	select {
	case err := <-done:
		t.Fatalf("ServeStdio returned (%v) before the running call was answered", err)
	case <-time.After(50 * time.Millisecond):
	}
	close(release)
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("ServeStdio did not return after its input closed and the call ended")
	}
	var rest []reply
	for r := range replies {
		rest = append(rest, r)
	}
	if len(rest) != 1 || string(rest[0].ID) != "2" || rest[0].Result == nil {
		t.Fatalf("after the end of input: %+v, want the one result of call 2", rest)
	}
}
