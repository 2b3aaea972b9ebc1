package wasmtool

import (
	"encoding/json"
	"testing"
	"unicode/utf8"
)

// FuzzPluginOutputs feeds arbitrary bytes to every decoder of plugin
// output: none may panic, and what they accept must encode again as the
// host will encode it in events.
func FuzzPluginOutputs(f *testing.F) {
	for _, s := range []string{
		`{"abi":1,"name":"x","tools":[{"name":"t","description":"d","parameters":{"type":"object","properties":{"a":{"type":"string"}}}}],"hooks":["beforeToolCall"],"needs":{"paths":[{"guest":"/w","write":true}]}}`,
		`{"content":[{"type":"text","text":"hi"},{"type":"image","data":"aGk=","mimeType":"image/png"}],"details":{"n":1},"terminate":true}`,
		`{"block":true,"reason":"no"}`,
		`{"arguments":{"path":"/work/a"},"ask":"ok?"}`, `{"arguments":[1]}`, `{"arguments":null}`, `{"abi":1,"name":"g","hooks":["beforeToolCall"],"gate":true}`,
		`{"content":[],"details":null,"isError":false,"terminate":null}`,
		`{}`, `null`, `[]`, `{"content":null}`, "\xff",
		"{\"content\":[],\"details\":{\"\xff\":\"\xc3\"}}", "{\"arguments\":{\"a\":\"\xed\xa0\x80\"}}",
	} {
		for k := range 4 {
			f.Add([]byte(s), uint8(k))
		}
	}
	f.Fuzz(func(t *testing.T, out []byte, kind uint8) {
		switch kind % 4 {
		case 0:
			if d, err := parseDescription(out); err == nil {
				if _, err := json.Marshal(d); err != nil {
					t.Fatalf("accepted description does not encode: %v", err)
				}
			}
		case 1:
			if r, _, err := parseResult(out); err == nil {
				b, err := json.Marshal(r)
				if err != nil {
					t.Fatalf("accepted result does not encode: %v", err)
				}
				if !utf8.Valid(b) || len(r.Content) > MaxContentBlocks {
					t.Fatalf("accepted result encodes as invalid UTF-8 or has %d blocks: %q", len(r.Content), b)
				}
			}
		case 2:
			r, _, err := parseBefore(out)
			if err == nil && r == nil {
				t.Fatal("nil result without an error")
			}
			if err == nil && r.Args != nil && (!json.Valid(r.Args) || r.Args[0] != '{' || !utf8.Valid(r.Args)) {
				t.Fatalf("accepted arguments that are not an object: %s", r.Args)
			}
		case 3:
			if r, _, err := parseAfter(out); err == nil && r != nil {
				b, err := json.Marshal(r)
				if err != nil {
					t.Fatalf("accepted after-result does not encode: %v", err)
				}
				if !utf8.Valid(b) || len(r.Content) > MaxContentBlocks {
					t.Fatalf("accepted after-result encodes as invalid UTF-8 or has %d blocks: %q", len(r.Content), b)
				}
			}
		}
	})
}
