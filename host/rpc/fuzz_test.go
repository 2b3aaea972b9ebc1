package rpc_test

import (
	"encoding/json"
	"testing"

	"github.com/wasmagent/wasmagent/host/rpc"
)

// FuzzDecodeCommand: no line makes DecodeCommand panic; an accepted
// command has a type, and its id, when kept, is a string or a number.
func FuzzDecodeCommand(f *testing.F) {
	for _, s := range []string{
		`{"id":"req-1","type":"prompt","message":"Hello"}`,
		`{"type":"prompt","message":"x","images":[{"type":"image","data":"AA==","mimeType":"image/png"}],"streamingBehavior":"steer"}`,
		`{"type":"set_auto_retry","enabled":true}` + "\r",
		`{"id":7,"type":"fork","entryId":"abc"}`,
		`{"type":"extension_ui_response","id":"6f1c","confirmed":true}`,
		`{"type":"extension_ui_response","id":"6f1c","cancelled":true}`,
		`{"id":null}`, `[]`, `"x"`, `{"type":""}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		c, err := rpc.DecodeCommand(line)
		if len(c.ID) > 0 {
			var v any
			if json.Unmarshal(c.ID, &v) != nil {
				t.Fatalf("id %q kept but not JSON", c.ID)
			}
			switch v.(type) {
			case string, float64:
			default:
				t.Fatalf("id %s kept", c.ID)
			}
		}
		if err == nil && c.Type == "" {
			t.Fatal("accepted without a type")
		}
	})
}
