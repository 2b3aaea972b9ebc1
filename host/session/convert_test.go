package session_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmagent/wasmagent/host"
	"github.com/wasmagent/wasmagent/host/scripted"
	"github.com/wasmagent/wasmagent/host/session"
)

// A session pi compacted continues with its summary: the model is sent
// pi's summary text as a user message, then the kept messages; entries
// before the kept ones are not sent.
func TestCompactedSessionSendsSummary(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "c.jsonl")
	os.WriteFile(path, []byte(`{"type":"session","version":3,"id":"u1","timestamp":"2024-12-03T14:00:00.000Z","cwd":"/p"}
{"type":"message","id":"a","parentId":null,"timestamp":"2024-12-03T14:00:01.000Z","message":{"role":"user","content":"old question","timestamp":1}}
{"type":"message","id":"b","parentId":"a","timestamp":"2024-12-03T14:00:02.000Z","message":{"role":"user","content":"kept question","timestamp":2}}
{"type":"compaction","id":"c","parentId":"b","timestamp":"2024-12-03T14:10:00.000Z","summary":"They talked.","firstKeptEntryId":"b","tokensBefore":500}
{"type":"custom_message","id":"d","parentId":"c","timestamp":"2024-12-03T14:11:00.000Z","customType":"ext","content":"injected","display":true}
`), 0o600)
	m := scripted.Of(scripted.Turn{Content: host.Text("ok")})
	s, err := session.Open(context.Background(), opts(t, dir, m), path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	prompt(t, s, "new")
	req := m.Requests()[0]
	var texts []string
	for _, msg := range req.Messages {
		u, ok := msg.(*host.UserMessage)
		if !ok {
			t.Fatalf("sent a %s", msg.MessageRole())
		}
		texts = append(texts, u.Content.TextOf())
	}
	got := strings.Join(texts, "|")
	want := "The conversation history before this point was compacted into the following summary:\n\n<summary>\nThey talked.\n</summary>|kept question|injected|new"
	if got != want {
		t.Fatalf("sent %q\nwant %q", got, want)
	}
}
