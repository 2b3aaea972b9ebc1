package mcp_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"testing"

	"github.com/wasmagent/wasmagent/host"
	"github.com/wasmagent/wasmagent/host/hosttest"
)

// Messages a broken client sends that answer nothing — responses and
// errors for ids the server never used, cancellations and progress for
// requests that are not running, notifications nobody knows — are
// ignored: they get no reply, and the session serves on.
func TestStdioStrayMessages(t *testing.T) {
	srv := newServer(t, &host.ToolRunner{Tools: []host.Tool{hosttest.Echo("echo")}})
	in, w := io.Pipe()
	out, sw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- srv.ServeStdio(context.Background(), in, sw, 0)
		sw.Close()
	}()
	go func() {
		for _, l := range []string{
			`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`,
			`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
			`{"jsonrpc":"2.0","id":99,"result":{}}`,
			`{"jsonrpc":"2.0","id":"x","error":{"code":1,"message":"m"}}`,
			`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":12345}}`,
			`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":{"a":1}}}`,
			`{"jsonrpc":"2.0","method":"notifications/cancelled"}`,
			`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}}`,
			`{"jsonrpc":"2.0","method":"no/such"}`,
			`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"echo","arguments":{"a":1}}}`,
		} {
			io.WriteString(w, l+"\n")
		}
		w.Close()
	}()
	var ids []string
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		var r reply
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("not JSON: %q", sc.Text())
		}
		if r.Result == nil && r.Error == nil {
			t.Fatalf("a message that is no reply: %s", sc.Text())
		}
		ids = append(ids, string(r.ID))
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if len(ids) != 2 || ids[0] != `"init"` || ids[1] != "5" {
		t.Fatalf("replies to %v, want to the initialize and the call only", ids)
	}
}
