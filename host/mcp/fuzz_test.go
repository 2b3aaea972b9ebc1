package mcp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"strconv"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// Whatever a client sends, a line decodes to a message or to one JSON-RPC
// 2.0 error response; nothing panics and the reader never reads past a
// line's end.
func FuzzStdioLine(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`,
		`{"jsonrpc":"2.0","id":"a","result":{}}`,
		`[{"jsonrpc":"2.0","id":1,"method":"x"}]`,
		`{"id":[1],"method":"x"}`, `{"jsonrpc":"2.0","id":1.5,"method":"x"}`, `{"jsonrpc":"2.0","id":-9007199254740993,"method":"x"}`, `{"id":-3}`, `nul`, `{}`, "\r", `{"jsonrpc":"2.0","id":1e400,"method":"x"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		r := bufio.NewReaderSize(bytes.NewReader(append(append([]byte{}, line...), "\nnext\n"...)), 16)
		got, size, err := readLine(r, 64)
		if err != nil {
			t.Fatalf("readLine: %v", err)
		}
		if size > 64+1 && got != nil {
			t.Fatalf("a line of %d bytes was kept", size)
		}
		msg, bad := decodeLine(got, size, 64)
		if (msg == nil) == (bad == nil) {
			t.Fatalf("want exactly one of a message or an error; got %v and %q", msg, bad)
		}
		if req, ok := msg.(*jsonrpc.Request); ok && req.IsCall() {
			// A request served is answered with the id it was sent with.
			if n, isNum := req.ID.Raw().(int64); isNum {
				f, err := strconv.ParseFloat(string(rawID(got)), 64)
				if err != nil || f != float64(n) || int64(f) != n {
					t.Fatalf("id %s is served as %d", rawID(got), n)
				}
			}
		}
		if bad != nil {
			var e struct {
				JSONRPC string          `json:"jsonrpc"`
				ID      json.RawMessage `json:"id"`
				Error   *struct {
					Code    int64  `json:"code"`
					Message string `json:"message"`
				} `json:"error"`
			}
			if err := json.Unmarshal(bad, &e); err != nil || e.JSONRPC != "2.0" || e.Error == nil || e.Error.Message == "" || len(e.ID) == 0 {
				t.Fatalf("bad error response %q (%v)", bad, err)
			}
		}
		next, _, _ := readLine(r, 64)
		if string(next) != "next" && !bytes.Contains(line, []byte("\n")) {
			t.Fatalf("the reader lost the next line: %q", next)
		}
	})
}
