// Package openaitest writes streamed chat completions as an OpenAI server
// sends them (SSE, one chunk an event) and serves them over loopback, for
// tests of the openai adapter and of what is built on it.
package openaitest

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
)

// Stream builds one response body, chunk by chunk.
type Stream struct {
	b bytes.Buffer
}

func (s *Stream) chunk(delta map[string]any, finish any) {
	c := map[string]any{
		"id": "chatcmpl-T", "object": "chat.completion.chunk", "created": 1764400001, "model": "test-model",
		"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}},
	}
	b, _ := json.Marshal(c)
	s.b.WriteString("data: ")
	s.b.Write(b)
	s.b.WriteString("\n\n")
}

// Text streams a fragment of the answer's text.
func (s *Stream) Text(t string) *Stream {
	s.chunk(map[string]any{"content": t}, nil)
	return s
}

// Reasoning streams a fragment of thinking (as reasoning_content).
func (s *Stream) Reasoning(t string) *Stream {
	s.chunk(map[string]any{"reasoning_content": t}, nil)
	return s
}

// Call starts tool call index with its id and name.
func (s *Stream) Call(index int, id, name string) *Stream {
	s.chunk(map[string]any{"tool_calls": []any{map[string]any{
		"index": index, "id": id, "type": "function", "function": map[string]any{"name": name, "arguments": ""},
	}}}, nil)
	return s
}

// Args streams a fragment of tool call index's arguments.
func (s *Stream) Args(index int, frag string) *Stream {
	s.chunk(map[string]any{"tool_calls": []any{map[string]any{
		"index": index, "function": map[string]any{"arguments": frag},
	}}}, nil)
	return s
}

// Finish ends the response with a finish reason and [DONE].
func (s *Stream) Finish(reason string) *Stream {
	s.chunk(map[string]any{}, reason)
	s.b.WriteString("data: [DONE]\n\n")
	return s
}

// Bytes is the body so far.
func (s *Stream) Bytes() []byte { return s.b.Bytes() }

// Serve answers the i-th request with bodies[i] (the last one again once
// they run out), written event by event and flushed.
func Serve(t testing.TB, bodies ...[]byte) *httptest.Server {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		i := min(int(hits.Add(1))-1, len(bodies)-1)
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		for ev := range bytes.SplitAfterSeq(bodies[i], []byte("\n\n")) {
			w.Write(ev)
			w.(http.Flusher).Flush()
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// Client is an HTTP client that answers the i-th request with bodies[i]
// (the last one again once they run out) without a network, for fuzzing
// and benchmarks.
func Client(bodies ...[]byte) *http.Client {
	var hits atomic.Int32
	return &http.Client{Transport: roundTrip(func(r *http.Request) (*http.Response, error) {
		i := min(int(hits.Add(1))-1, len(bodies)-1)
		return &http.Response{
			StatusCode: http.StatusOK, Request: r,
			Header: http.Header{"Content-Type": {"text/event-stream"}},
			Body:   io.NopCloser(bytes.NewReader(bodies[i])),
		}, nil
	})}
}

type roundTrip func(*http.Request) (*http.Response, error)

func (f roundTrip) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
