package openai_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/wasmagent/wasmagent/host"
	"github.com/wasmagent/wasmagent/host/openai"
)

// server serves testdata/NAME.sse as a server sends SSE: event by event,
// flushed, and keeps the request bodies it was sent.
type server struct {
	*httptest.Server
	mu     sync.Mutex
	bodies []map[string]any
	hits   atomic.Int32
}

func newServer(t *testing.T, handle func(s *server, w http.ResponseWriter, r *http.Request)) *server {
	s := &server{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.hits.Add(1)
		var body map[string]any
		b, _ := io.ReadAll(r.Body)
		json.Unmarshal(b, &body)
		s.mu.Lock()
		s.bodies = append(s.bodies, body)
		s.mu.Unlock()
		handle(s, w, r)
	}))
	t.Cleanup(s.Close)
	return s
}

func sendSSE(t *testing.T, w http.ResponseWriter, name string) {
	data, err := os.ReadFile("testdata/" + name + ".sse")
	if err != nil {
		t.Error(err)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	for _, ev := range strings.SplitAfter(string(data), "\n\n") {
		io.WriteString(w, ev)
		w.(http.Flusher).Flush()
	}
}

func fileServer(t *testing.T, name string) *server {
	return newServer(t, func(s *server, w http.ResponseWriter, r *http.Request) { sendSSE(t, w, name) })
}

func model(t *testing.T, url string, mod func(*openai.Options)) *openai.Model {
	opts := openai.Options{Model: "test-model", BaseURL: url, APIKey: "sk-test"}
	if mod != nil {
		mod(&opts)
	}
	m, err := openai.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// stream runs one request and returns the final message and the event
// types (with content index for block events).
func stream(t *testing.T, m *openai.Model, ctx context.Context, req *host.Request) (*host.AssistantMessage, []string) {
	var types []string
	msg := m.Stream(ctx, req, func(e host.AssistantMessageEvent) {
		switch e.Type {
		case host.StreamStart, host.StreamDone, host.StreamError:
			types = append(types, e.Type)
		default:
			types = append(types, fmt.Sprintf("%s:%d", e.Type, e.ContentIndex))
		}
		if b, err := json.Marshal(e); err != nil || !json.Valid(b) {
			t.Errorf("event %s does not encode: %v", e.Type, err)
		}
	})
	return msg, types
}

var hello = &host.Request{Messages: []host.Message{&host.UserMessage{Content: host.Text("hi")}}}

func TestText(t *testing.T) {
	s := fileServer(t, "openai_text")
	msg, types := stream(t, model(t, s.URL, nil), context.Background(), hello)
	if got := strings.Join(types, " "); got != "start text_start:0 text_delta:0 text_delta:0 text_end:0 done" {
		t.Fatalf("events: %s", got)
	}
	if msg.Content.TextOf() != "The answer is 42." || msg.StopReason != host.StopReasonStop || msg.ResponseID != "chatcmpl-A1" {
		t.Fatalf("message: %+v", msg)
	}
	if msg.Usage.Input != 20 || msg.Usage.CacheRead != 100 || msg.Usage.Output != 7 || msg.Usage.TotalTokens != 127 {
		t.Fatalf("usage: %+v", msg.Usage)
	}
	if msg.API != "openai-completions" || msg.Provider != "openai" || msg.Model != "test-model" || msg.ResponseModel != "gpt-4o-mini-2024-07-18" {
		t.Fatalf("labels: %+v", msg)
	}
}

// Two tool calls whose argument fragments interleave are put together by
// index; as in pi-ai, each call's first piece (its id and name, no
// arguments) is an update too.
func TestParallelToolCalls(t *testing.T) {
	s := fileServer(t, "openai_parallel_tools")
	msg, types := stream(t, model(t, s.URL, nil), context.Background(), hello)
	want := "start toolcall_start:0 toolcall_delta:0 toolcall_start:1 toolcall_delta:1 toolcall_delta:0 toolcall_delta:1 toolcall_delta:0 toolcall_delta:1 toolcall_end:0 toolcall_end:1 done"
	if got := strings.Join(types, " "); got != want {
		t.Fatalf("events:\n got %s\nwant %s", got, want)
	}
	calls := msg.Content.ToolCalls()
	if len(calls) != 2 || calls[0].ID != "call_AAA" || calls[0].Name != "read" || string(calls[0].Arguments) != `{"path": "a.txt"}` ||
		calls[1].ID != "call_BBB" || calls[1].Name != "calc" || string(calls[1].Arguments) != `{"expression": "6*7"}` {
		t.Fatalf("calls: %+v", calls)
	}
	if msg.StopReason != host.StopReasonToolUse {
		t.Fatalf("stop reason %s", msg.StopReason)
	}
}

func TestReasoningContent(t *testing.T) {
	s := fileServer(t, "deepseek_reasoning")
	msg, types := stream(t, model(t, s.URL, nil), context.Background(), hello)
	if got := strings.Join(types, " "); got != "start thinking_start:0 thinking_delta:0 thinking_delta:0 text_start:1 text_delta:1 thinking_end:0 text_end:1 done" {
		t.Fatalf("events: %s", got)
	}
	th, ok := msg.Content[0].(host.ThinkingContent)
	if !ok || th.Thinking != "The user asks for 6*7. That is 42." || msg.Content.TextOf() != "42" {
		t.Fatalf("content: %+v", msg.Content)
	}
}

// Ollama sends a whole tool call in one chunk, its thinking as
// "reasoning", and finish_reason "stop" for a message with tool calls.
func TestOllamaToolCall(t *testing.T) {
	s := fileServer(t, "ollama_tools")
	msg, _ := stream(t, model(t, s.URL, nil), context.Background(), hello)
	calls := msg.Content.ToolCalls()
	if len(calls) != 1 || string(calls[0].Arguments) != `{"expression":"2+2"}` || msg.StopReason != host.StopReasonToolUse {
		t.Fatalf("message: %+v", msg)
	}
	if th, ok := msg.Content[0].(host.ThinkingContent); !ok || th.Thinking != "Need the calculator." {
		t.Fatalf("thinking: %+v", msg.Content)
	}
}

func TestLlamaCppLength(t *testing.T) {
	s := fileServer(t, "llamacpp_text")
	msg, _ := stream(t, model(t, s.URL, nil), context.Background(), hello)
	if msg.Content.TextOf() != "Hello there" || msg.StopReason != host.StopReasonLength || msg.Usage.Output != 2 {
		t.Fatalf("message: %+v", msg)
	}
}

func TestStreamFailures(t *testing.T) {
	for _, c := range []struct{ file, want string }{
		{"malformed", "the server sent an event that is not valid JSON"},
		{"cut", "the stream ended before the model finished"},
		{"stream_error", "the server failed during the stream: The server is overloaded, please retry."},
	} {
		t.Run(c.file, func(t *testing.T) {
			s := fileServer(t, c.file)
			msg, types := stream(t, model(t, s.URL, nil), context.Background(), hello)
			if msg.StopReason != host.StopReasonError || msg.ErrorMessage == "" || !strings.Contains(msg.ErrorMessage, c.want) {
				t.Fatalf("stop %s, error %q, want %q", msg.StopReason, msg.ErrorMessage, c.want)
			}
			if types[0] != "start" || types[len(types)-1] != "error" {
				t.Fatalf("events: %v", types)
			}
			t.Log(msg.ErrorMessage)
		})
	}
}

// A 429 is retried (honouring Retry-After), then the stream succeeds.
func Test429ThenSuccess(t *testing.T) {
	s := newServer(t, func(s *server, w http.ResponseWriter, r *http.Request) {
		if s.hits.Load() == 1 {
			w.Header().Set("Retry-After", "0")
			w.WriteHeader(http.StatusTooManyRequests)
			io.WriteString(w, `{"error":{"message":"Rate limit reached","type":"requests","code":"rate_limit_exceeded"}}`)
			return
		}
		sendSSE(t, w, "openai_text")
	})
	msg, _ := stream(t, model(t, s.URL, nil), context.Background(), hello)
	if msg.StopReason != host.StopReasonStop || s.hits.Load() != 2 {
		t.Fatalf("stop %s after %d requests: %s", msg.StopReason, s.hits.Load(), msg.ErrorMessage)
	}
}

// A 500 that persists is an error message with the server's message, and
// no start event (the response never began).
func Test500(t *testing.T) {
	s := newServer(t, func(s *server, w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusInternalServerError)
		io.WriteString(w, `{"error":{"message":"The model crashed","type":"server_error"}}`)
	})
	msg, types := stream(t, model(t, s.URL, func(o *openai.Options) { o.Retries = 1 }), context.Background(), hello)
	if msg.StopReason != host.StopReasonError || msg.ErrorMessage != "500 Internal Server Error: The model crashed (POST "+s.URL+"/chat/completions, 2 attempts)" {
		t.Fatalf("stop %s: %q", msg.StopReason, msg.ErrorMessage)
	}
	if strings.Join(types, " ") != "error" || s.hits.Load() != 2 {
		t.Fatalf("events %v after %d requests", types, s.hits.Load())
	}
}

// A slow server and an abort: the stream ends as aborted without waiting
// for the server.
func TestAbortSlowServer(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	s := newServer(t, func(s *server, w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, `data: {"id":"x","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"Slow"},"finish_reason":null}]}`+"\n\n")
		w.(http.Flusher).Flush()
		select {
		case <-release:
		case <-r.Context().Done():
		}
	})
	ctx, cancel := context.WithCancel(context.Background())
	m := model(t, s.URL, nil)
	done := make(chan *host.AssistantMessage, 1)
	go func() {
		done <- m.Stream(ctx, hello, func(e host.AssistantMessageEvent) {
			if e.Type == host.StreamTextDelta {
				cancel()
			}
		})
	}()
	select {
	case msg := <-done:
		if msg.StopReason != host.StopReasonAborted || msg.Content.TextOf() != "Slow" {
			t.Fatalf("message: %+v", msg)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the stream did not end after the abort")
	}
}

func TestTimeout(t *testing.T) {
	s := newServer(t, func(s *server, w http.ResponseWriter, r *http.Request) {
		<-r.Context().Done()
	})
	msg, _ := stream(t, model(t, s.URL, func(o *openai.Options) { o.Timeout = 100 * time.Millisecond; o.Retries = -1 }), context.Background(), hello)
	if msg.StopReason != host.StopReasonError || !strings.Contains(msg.ErrorMessage, "timed out") {
		t.Fatalf("stop %s: %q", msg.StopReason, msg.ErrorMessage)
	}
}

// What is sent: the system prompt, the transcript with tool calls and
// results, images as data URLs, tools as functions, streaming with usage.
func TestRequest(t *testing.T) {
	s := fileServer(t, "openai_text")
	temp := 0.3
	m := model(t, s.URL, func(o *openai.Options) { o.Temperature = &temp; o.MaxTokens = 500 })
	req := &host.Request{
		SystemPrompt: "Be brief.",
		Messages: []host.Message{
			&host.UserMessage{Content: host.Contents{host.TextContent{Text: "look"}, host.ImageContent{Data: "aGk=", MimeType: "image/png"}}},
			&host.AssistantMessage{StopReason: host.StopReasonToolUse, Content: host.Contents{
				host.TextContent{Text: "Reading."},
				host.ToolCall{ID: "c1", Name: "read", Arguments: json.RawMessage(`{"path":"a"}`)},
				host.ToolCall{ID: "c2", Name: "read", Arguments: json.RawMessage(`{"path":"b"}`)},
			}},
			&host.ToolResultMessage{ToolCallID: "c1", ToolName: "read", Content: host.Text("A")},
			&host.AssistantMessage{StopReason: host.StopReasonAborted, Content: host.Contents{host.ToolCall{ID: "c9", Name: "read"}}},
			&host.UserMessage{Content: host.Text("go on")},
		},
		Tools:     []host.ToolSpec{{Name: "read", Description: "Reads.", Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}}}`)}},
		Reasoning: "low",
	}
	if msg, _ := stream(t, m, context.Background(), req); msg.StopReason != host.StopReasonStop {
		t.Fatal(msg.ErrorMessage)
	}
	got, _ := json.Marshal(s.bodies[0])
	want := `{"max_completion_tokens":500,"messages":[` +
		`{"content":"Be brief.","role":"system"},` +
		`{"content":[{"text":"look","type":"text"},{"image_url":{"url":"data:image/png;base64,aGk="},"type":"image_url"}],"role":"user"},` +
		`{"content":"Reading.","role":"assistant","tool_calls":[{"function":{"arguments":"{\"path\":\"a\"}","name":"read"},"id":"c1","type":"function"},{"function":{"arguments":"{\"path\":\"b\"}","name":"read"},"id":"c2","type":"function"}]},` +
		`{"content":"A","role":"tool","tool_call_id":"c1"},` +
		`{"content":"No result provided","role":"tool","tool_call_id":"c2"},` +
		`{"content":"go on","role":"user"}],` +
		`"model":"test-model","reasoning_effort":"low","stream":true,"stream_options":{"include_usage":true},"temperature":0.3,` +
		`"tools":[{"function":{"description":"Reads.","name":"read","parameters":{"properties":{"path":{"type":"string"}},"type":"object"}},"type":"function"}]}`
	if string(got) != want {
		t.Fatalf("request:\n got %s\nwant %s", got, want)
	}
}
