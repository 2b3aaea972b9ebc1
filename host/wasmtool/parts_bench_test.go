package wasmtool

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/wasmagent/wasmagent/host"
)

// The host's side of a 1 MiB text result: decoding it as JSON against
// taking it in parts (the head, then the text checked for UTF-8).
//
//	go test ./host/wasmtool -run '^$' -bench DecodeResult1MiB -count 3
func BenchmarkDecodeResult1MiB(b *testing.B) {
	text := strings.Repeat("x", 1<<20)
	plain, _ := json.Marshal(map[string]any{"content": []map[string]string{{"type": "text", "text": text}}})
	head := []byte(`{"content":[{"type":"text","textPart":0}]}`)
	b.Run("json", func(b *testing.B) {
		for b.Loop() {
			if r, _, err := parseResult(plain); err != nil || textLen(r) != len(text) {
				b.Fatal(err)
			}
		}
	})
	b.Run("parts", func(b *testing.B) {
		for b.Loop() {
			if r, _, err := parseResultParts(head, []string{text}); err != nil || textLen(r) != len(text) {
				b.Fatal(err)
			}
		}
	})
}

func textLen(r host.ToolResult) int {
	if len(r.Content) != 1 {
		return -1
	}
	t, _ := r.Content[0].(host.TextContent)
	return len(t.Text)
}
