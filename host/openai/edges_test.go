package openai_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/wasmagent/wasmagent/host"
	"github.com/wasmagent/wasmagent/host/hosttest"
	"github.com/wasmagent/wasmagent/host/openai"
	"github.com/wasmagent/wasmagent/host/openai/openaitest"
	"github.com/wasmagent/wasmagent/internal/words"
)

// 200 tool calls in one streamed message: every one is answered, the first
// 128 by the tool and the rest with an error result that says why, and the
// session goes on to the model's next answer.
func Test200CallsThroughTheAdapter(t *testing.T) {
	s := &openaitest.Stream{}
	for i := range 200 {
		s.Call(i, fmt.Sprintf("c%03d", i), "echo").Args(i, fmt.Sprintf(`{"n":%d}`, i))
	}
	srv := openaitest.Serve(t, s.Finish("tool_calls").Bytes(), (&openaitest.Stream{}).Text("done").Finish("stop").Bytes())
	m := model(t, srv.URL, nil)
	msgs, err := host.RunLoop(context.Background(), []host.Message{&host.UserMessage{Content: host.Text("go")}},
		&host.Context{Tools: []host.Tool{hosttest.Echo("echo")}}, &host.Config{Model: m}, func(context.Context, host.Event) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, msg := range msgs {
		r, ok := msg.(*host.ToolResultMessage)
		if !ok {
			continue
		}
		over := n >= host.DefaultMaxToolCalls
		if r.ToolCallID != fmt.Sprintf("c%03d", n) || r.IsError != over {
			t.Fatalf("result %d: %+v", n, r)
		}
		if over && !strings.Contains(r.Content.TextOf(), "at most 128 calls of one message run") {
			t.Fatalf("result %d says %q", n, r.Content.TextOf())
		}
		if !over && r.Content.TextOf() != fmt.Sprintf(`{"n":%d}`, n) {
			t.Fatalf("result %d says %q", n, r.Content.TextOf())
		}
		n++
	}
	last := msgs[len(msgs)-1].(*host.AssistantMessage)
	if n != 200 || last.Content.TextOf() != "done" {
		t.Fatalf("%d results; last message %+v", n, last)
	}
}

// A stream that stops before the server says why it ended (no finish
// reason, or the connection closing mid-chunk) says so, not "unexpected
// EOF".
func TestCutStream(t *testing.T) {
	head := (&openaitest.Stream{}).Text("Hello").Bytes()
	for name, handle := range map[string]http.HandlerFunc{
		"no finish reason": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			w.Write(head)
		},
		"closed mid-chunk": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			w.Write(head)
			w.Write([]byte(`data: {"id":"chatcmpl-T","choices":[{"index":0,"del`))
			w.(http.Flusher).Flush()
			panic(http.ErrAbortHandler)
		},
	} {
		t.Run(name, func(t *testing.T) {
			srv := httptest.NewServer(handle)
			defer srv.Close()
			msg, _ := stream(t, model(t, srv.URL, func(o *openai.Options) { o.Retries = -1 }), context.Background(), hello)
			if msg.StopReason != host.StopReasonError || !strings.Contains(msg.ErrorMessage, "the stream ended before the model finished") ||
				strings.Contains(msg.ErrorMessage, "unexpected EOF") {
				t.Fatalf("stop %s, error %q", msg.StopReason, msg.ErrorMessage)
			}
			if msg.Content.TextOf() != "Hello" {
				t.Fatalf("the text streamed before the cut is lost: %+v", msg.Content)
			}
		})
	}
}

// The cap on a response's bytes holds at the cap and one byte over.
func TestResponseCap(t *testing.T) {
	body := (&openaitest.Stream{}).Text(strings.Repeat("x", 5000)).Finish("stop").Bytes()
	for _, c := range []struct {
		limit int64
		ok    bool
	}{{int64(len(body)), true}, {int64(len(body)) - 1, false}} {
		m, err := openai.New(openai.Options{Model: "m", BaseURL: "http://cap.invalid/v1", Retries: -1, MaxResponseBytes: c.limit,
			HTTPClient: &http.Client{Transport: bodyTransport(body)}})
		if err != nil {
			t.Fatal(err)
		}
		msg := m.Stream(context.Background(), hello, func(host.AssistantMessageEvent) {})
		if c.ok && (msg.StopReason != host.StopReasonStop || len(msg.Content.TextOf()) != 5000) {
			t.Fatalf("cap %d (the body's size): %s %q", c.limit, msg.StopReason, msg.ErrorMessage)
		}
		want := "more than " + words.Count(c.limit, "byte") + " streamed (model.max_response_bytes)"
		if !c.ok && (msg.StopReason != host.StopReasonError || !strings.Contains(msg.ErrorMessage, want)) {
			t.Fatalf("cap %d (one byte under the body): %s %q", c.limit, msg.StopReason, msg.ErrorMessage)
		}
	}
}

// Whatever the shape of a message and the size of its fragments, the
// assembled message is the one the server meant, and every event's partial
// still holds, after the stream, exactly what it held when it was emitted:
// the snapshots share buffers with the assembler without ever seeing a
// later append.
func TestSnapshotsNeverChange(t *testing.T) {
	for seed := range uint64(40) {
		rng := rand.New(rand.NewPCG(seed, 7))
		s, content := openaitest.RandomMessage(rng, 120, 40)
		wantJSON, _ := json.Marshal(content)
		want := string(wantJSON)
		body := s.Finish("tool_calls").Bytes()
		m, err := openai.New(openai.Options{Model: "m", BaseURL: "http://snap.invalid/v1", Retries: -1, HTTPClient: &http.Client{Transport: bodyTransport(body)}})
		if err != nil {
			t.Fatal(err)
		}
		type seen struct {
			partial *host.AssistantMessage
			json    string
		}
		var all []seen
		msg := m.Stream(context.Background(), hello, func(e host.AssistantMessageEvent) {
			if e.Partial != nil {
				b, _ := json.Marshal(e.Partial.Content)
				all = append(all, seen{e.Partial, string(b)})
			}
		})
		if msg.StopReason != host.StopReasonToolUse && len(msg.Content.ToolCalls()) > 0 {
			t.Fatalf("seed %d: %s %q", seed, msg.StopReason, msg.ErrorMessage)
		}
		got, _ := json.Marshal(msg.Content)
		if string(got) != want {
			t.Fatalf("seed %d: message\n got %s\nwant %s", seed, got, want)
		}
		for i, p := range all {
			if b, _ := json.Marshal(p.partial.Content); string(b) != p.json {
				t.Fatalf("seed %d: the partial of event %d changed after it was emitted:\n was %s\n now %s", seed, i, p.json, b)
			}
		}
	}
}

// One chunk of many values (here empty tool calls, then elements of a
// member no one reads) is refused before it is decoded, with an error that
// says what the server sent, and it costs the host a bounded heap: on the
// old main a chunk of 80,000 empty calls (1.1 MB) was decoded whole,
// some 70 MB, before the cap on content blocks refused it. A chunk
// within the bound decodes, however its bytes arrive.
func TestOneChunkFloodIsRefused(t *testing.T) {
	chunk := func(n int, item func(int) string) []byte {
		var b strings.Builder
		b.WriteString(`data: {"id":"x","choices":[{"index":0,"delta":{"tool_calls":[`)
		for i := range n {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(item(i))
		}
		b.WriteString("]}}]}\n\n")
		return []byte(b.String())
	}
	call := func(i int) string { return fmt.Sprintf(`{"index":%d}`, i) }
	var before, after runtime.MemStats
	for _, body := range [][]byte{
		chunk(80_000, call),
		append((&openaitest.Stream{}).Text("hi").Bytes(), chunk(openai.MaxEventValues/2+1, call)...),
	} {
		m, err := openai.New(openai.Options{Model: "m", BaseURL: "http://flood.invalid/v1", Retries: -1, HTTPClient: &http.Client{Transport: bodyTransport(body)}})
		if err != nil {
			t.Fatal(err)
		}
		runtime.GC()
		runtime.ReadMemStats(&before)
		msg := m.Stream(context.Background(), hello, func(host.AssistantMessageEvent) {})
		runtime.ReadMemStats(&after)
		want := fmt.Sprintf("the server sent an event of more than %d JSON values", openai.MaxEventValues)
		if msg.StopReason != host.StopReasonError || !strings.Contains(msg.ErrorMessage, want) {
			t.Fatalf("a chunk of %d bytes: %s %q", len(body), msg.StopReason, msg.ErrorMessage)
		}
		if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 16*uint64(len(body)) {
			t.Fatalf("a chunk of %d bytes: %d bytes allocated", len(body), alloc)
		}
	}
	// Within the bound: a member of 60,000 elements, in reads of any size.
	var b strings.Builder
	b.WriteString(`data: {"id":"y","x":[0`)
	b.WriteString(strings.Repeat(",0", 60_000))
	b.WriteString(`],"choices":[{"index":0,"delta":{"content":"ok"},"finish_reason":"stop"}]}` + "\n\n")
	m, err := openai.New(openai.Options{Model: "m", BaseURL: "http://flood.invalid/v1", Retries: -1, HTTPClient: &http.Client{Transport: choppedTransport(b.String())}})
	if err != nil {
		t.Fatal(err)
	}
	if msg := m.Stream(context.Background(), hello, func(host.AssistantMessageEvent) {}); msg.StopReason != host.StopReasonStop || msg.Content.TextOf() != "ok" {
		t.Fatalf("a chunk within the bound: %s %q", msg.StopReason, msg.ErrorMessage)
	}
}

// choppedTransport answers with body as an SSE stream read a few bytes at
// a time.
type choppedTransport string

func (c choppedTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	return &http.Response{
		StatusCode: 200, Request: r,
		Header: http.Header{"Content-Type": {"text/event-stream"}},
		Body:   io.NopCloser(iotest.HalfReader(strings.NewReader(string(c)))),
	}, nil
}
