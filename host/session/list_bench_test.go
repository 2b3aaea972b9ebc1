package session

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/wasmagent/wasmagent/host"
)

// words makes n bytes of text of words, as prompts and tool output are.
func words(r *rand.Rand, n int) string {
	const vocab = "the file read write test func return error value session tool call model line path a of to in is for \"quoted\" new\nline tab\there {json} ünï €"
	w := strings.Fields(vocab)
	var b strings.Builder
	for b.Len() < n {
		b.WriteString(w[r.IntN(len(w))])
		b.WriteByte(' ')
	}
	return b.String()
}

// realisticSession is a coding session as pi and wasmagent write them:
// turns of a prompt, an assistant message with thinking, text and a tool
// call, and the tool's result (½–6½ KiB, now and then 48 KiB), with the
// entries of other kinds a session holds (model and thinking-level
// changes, a name now and then).
func realisticSession(r *rand.Rand, id, name string, turns int) []byte {
	h := Header{ID: id, Timestamp: "2026-12-01T10:00:00.000Z", Cwd: "/home/me/project"}
	var entries []Entry
	parent := ""
	add := func(e Entry) {
		e.ID, e.ParentID, e.Timestamp = fmt.Sprintf("%08x", len(entries)), parent, "2026-12-01T10:00:01.000Z"
		parent = e.ID
		entries = append(entries, e)
	}
	add(Entry{Type: TypeModelChange, Raw: json.RawMessage(`{"type":"model_change","id":"m0","parentId":null,"timestamp":"2026-12-01T10:00:00.000Z","provider":"openai","modelId":"gpt-4o"}`)})
	add(Entry{Type: TypeThinkingLevel, ThinkingLevel: "medium"})
	for i := range turns {
		add(Entry{Type: TypeMessage, Message: &host.UserMessage{Content: host.Text(words(r, 100+r.IntN(400))), Timestamp: 1764583200000 + int64(i)}})
		args, _ := json.Marshal(map[string]string{"path": "src/" + words(r, 20), "content": words(r, r.IntN(400))})
		add(Entry{Type: TypeMessage, Message: &host.AssistantMessage{
			Content: host.Contents{host.ThinkingContent{Thinking: words(r, 300+r.IntN(1200)), ThinkingSignature: strings.Repeat("c2ln", 40)},
				host.TextContent{Text: words(r, 100+r.IntN(500))}, host.ToolCall{ID: fmt.Sprintf("call_%d", i), Name: "read", Arguments: args}},
			API: "openai-completions", Provider: "openai", Model: "gpt-4o", StopReason: host.StopReasonToolUse,
			Usage:     host.Usage{Input: 1200 + i*900, Output: 350, CacheRead: i * 800, TotalTokens: 2000 + i*1700, Cost: host.Cost{Input: 0.003, Output: 0.0035, Total: 0.0065}},
			Timestamp: 1764583200000 + int64(i)}})
		size := 512 + r.IntN(6<<10)
		if r.IntN(20) == 0 {
			size = 48 << 10
		}
		add(Entry{Type: TypeMessage, Message: &host.ToolResultMessage{ToolCallID: fmt.Sprintf("call_%d", i), ToolName: "read",
			Content: host.Text(words(r, size)), Details: map[string]any{"lines": 120, "truncated": false}, Timestamp: 1764583200000 + int64(i)}})
		if name != "" && i == turns/2 {
			add(Entry{Type: TypeSessionInfo, Name: name})
		}
	}
	data, err := EncodeLines(&h, entries)
	if err != nil {
		panic(err)
	}
	return data
}

// writeRealistic writes n realistic sessions of 24 turns (some 200 KB
// each) in dir, named as Create names them, and returns their ids.
func writeRealistic(tb testing.TB, dir string, n int) []string {
	r := rand.New(rand.NewPCG(1, 2))
	base := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	var ids []string
	for i := range n {
		id := fmt.Sprintf("%08x-%04x-4%03x-8%03x-%012x", r.Uint32(), r.IntN(1<<16), r.IntN(1<<12), r.IntN(1<<12), r.Uint64()>>16)
		name := ""
		if i%3 == 0 {
			name = fmt.Sprintf("task %d", i)
		}
		s := &FileStore{Dir: dir}
		path := s.PathFor(Header{ID: id, Timestamp: base.Add(time.Duration(i) * time.Minute).Format("2006-01-02T15:04:05.000Z")})
		if err := os.WriteFile(path, realisticSession(r, id, name, 24), 0o600); err != nil {
			tb.Fatal(err)
		}
		mod := base.Add(time.Duration(i) * time.Minute)
		os.Chtimes(path, mod, mod)
		ids = append(ids, id)
	}
	return ids
}

// BenchmarkSessionsLs: `wasmagent sessions ls` and `--session PREFIX`
// among 300 sessions of some 200 KB, each as a new process does them
// (a fresh store): reading every file whole (as before), and through the
// list cache file a previous ls left; a prefix found by the header lines,
// against over List.
//
//	go test ./host/session -run '^$' -bench SessionsLs -benchtime 5x
func BenchmarkSessionsLs(b *testing.B) {
	dir := b.TempDir()
	ids := writeRealistic(b, dir, 300)
	ctx := context.Background()
	var total int64
	names, _ := os.ReadDir(dir)
	for _, n := range names {
		st, _ := n.Info()
		total += st.Size()
	}
	b.Logf("%d sessions, %d bytes", len(names), total)
	b.Run("ls/read-all", func(b *testing.B) {
		for range b.N {
			(&FileStore{Dir: dir, NoListCache: true}).List(ctx)
		}
	})
	(&FileStore{Dir: dir}).List(ctx)
	b.Run("ls/cache-file", func(b *testing.B) {
		for range b.N {
			(&FileStore{Dir: dir}).List(ctx)
		}
	})
	b.Run("find/over-list", func(b *testing.B) {
		for range b.N {
			Find(ctx, listOnly{&FileStore{Dir: dir, NoListCache: true}}, ids[150][:8])
		}
	})
	b.Run("find/headers", func(b *testing.B) {
		for range b.N {
			Find(ctx, &FileStore{Dir: dir, NoListCache: true}, ids[150][:8])
		}
	})
}
