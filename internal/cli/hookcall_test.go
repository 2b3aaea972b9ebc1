package cli

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/wasmagent/wasmagent/host/wasmtool"
)

// CALL_JSON is read strictly; what it accepts is a call the host could
// send: a named tool, an id, arguments.
func FuzzHookCallJSON(f *testing.F) {
	for _, s := range []string{
		`{"toolCall":{"id":"c1","name":"write","arguments":{"path":"a"}},"args":{"path":"a"}}`,
		`{"toolCall":{"name":"read"},"result":{"content":[{"type":"text","text":"x"}]},"isError":true}`,
		`{"toolCall":{"name":"x"}} {}`, `[]`, `{"toolCall":null}`,
		`{"toolCall":{"name":"read"},"result":{"content":[{"type":"image","mimeType":"image/png;base64,AAAA#","data":"AAAA"}]}}`,
	} {
		f.Add("before", s)
		f.Add("after", s)
	}
	f.Fuzz(func(t *testing.T, kind, raw string) {
		if kind != "before" {
			kind = "after"
		}
		c := &hookCall{kind: kind}
		if err := c.decode([]byte(raw)); err != nil {
			if !strings.HasPrefix(err.Error(), "CALL_JSON: ") {
				t.Fatalf("%q: %v", raw, err)
			}
			return
		}
		if c.in.ToolCall.Name == "" || c.in.ToolCall.ID == "" {
			t.Fatalf("%q: accepted %+v", raw, c.in)
		}
		if len(c.in.Args) > 0 && !json.Valid(c.in.Args) {
			t.Fatalf("%q: args %q", raw, c.in.Args)
		}
		if _, err := wasmtool.HostContent(c.in.Result.Content); err != nil {
			t.Fatalf("%q: accepted content a plugin could not return: %v", raw, err)
		}
	})
}

// CALL_JSON's result content is checked as a plugin's is (wasmtool.
// HostContent): a MIME type with parameters would put other bytes in the
// model's data URL than the hook saw. On the old main hostContents took
// any MIME type and image fields on a text block.
func TestHookCallContentIsCheckedAsAPluginsIs(t *testing.T) {
	call := func(block string) string {
		return `{"toolCall":{"name":"read"},"result":{"content":[` + block + `]}}`
	}
	for block, want := range map[string]string{
		`{"type":"image","mimeType":"image/png;base64,AAAA#","data":"AAAA"}`: `CALL_JSON: result.content[0]: image mimeType "image/png;base64,AAAA#" is not an image type`,
		`{"type":"image","mimeType":"text/plain","data":"AAAA"}`:             `CALL_JSON: result.content[0]: image mimeType "text/plain" is not an image type`,
		`{"type":"image","mimeType":"image/png","data":"not base64!"}`:       `CALL_JSON: result.content[0]: image data is not base64`,
		`{"type":"text","text":"x","mimeType":"image/png"}`:                  `CALL_JSON: result.content[0]: a text block has image fields`,
		`{"type":"audio","data":"AAAA"}`:                                     `CALL_JSON: result.content[0]: type "audio" is not text or image`,
		`{"type":"image","mimeType":"image/png","data":"AAAA"}`:              ``,
		`{"type":"text","text":"x"}`:                                         ``,
	} {
		c := &hookCall{kind: "after"}
		err := c.decode([]byte(call(block)))
		if want == "" && err != nil || want != "" && (err == nil || !strings.HasPrefix(err.Error(), want)) {
			t.Errorf("%s: err = %v, want %q", block, err, want)
		}
	}
}
