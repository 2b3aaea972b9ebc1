package session_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/wasmagent/wasmagent/host"
	"github.com/wasmagent/wasmagent/host/session"
	"github.com/wasmagent/wasmagent/host/session/sessiontest"
)

func TestFileStoreContract(t *testing.T) {
	sessiontest.Store(t, func(t *testing.T) session.Store { return &session.FileStore{Dir: t.TempDir(), NoSync: true} })
}

// The cost of keeping a message: one append of a typical assistant
// message, with and without fsync.
//
//	go test ./host/session -run '^$' -bench Append -count 3
func BenchmarkAppend(b *testing.B) {
	msg := &host.AssistantMessage{Content: host.Contents{host.TextContent{Text: "Reading the file now."},
		host.ToolCall{ID: "call_1", Name: "read", Arguments: json.RawMessage(`{"path":"notes.txt"}`)}},
		API: "openai-completions", Provider: "openai", Model: "gpt-4o", StopReason: host.StopReasonToolUse}
	for _, sync := range []bool{false, true} {
		name := "nosync"
		if sync {
			name = "fsync"
		}
		b.Run(name, func(b *testing.B) {
			s := &session.FileStore{Dir: b.TempDir(), NoSync: !sync}
			ctx := context.Background()
			l, err := s.Create(ctx, session.Header{ID: "bench", Timestamp: "2026-01-01T00:00:00.000Z"}, nil)
			if err != nil {
				b.Fatal(err)
			}
			defer l.Close()
			parent := ""
			for i := 0; b.Loop(); i++ {
				id := string(rune('a'+i%26)) + string(rune('a'+i/26%26)) + string(rune('a'+i/676%26))
				e := session.Entry{Type: session.TypeMessage, ID: id, ParentID: parent, Timestamp: "2026-01-01T00:00:01.000Z", Message: msg}
				if err := l.Append(ctx, e); err != nil {
					b.Fatal(err)
				}
				parent = id
			}
		})
	}
}
