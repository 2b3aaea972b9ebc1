package openai_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmagent/wasmagent/host"
	"github.com/wasmagent/wasmagent/host/openai"
	"github.com/wasmagent/wasmagent/host/openai/openaitest"
)

// bodyTransport answers every request with body as an SSE stream, without
// a network.
type bodyTransport []byte

func (b bodyTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	return &http.Response{
		StatusCode: 200, Request: r,
		Header: http.Header{"Content-Type": {"text/event-stream"}},
		Body:   io.NopCloser(bytes.NewReader(b)),
	}, nil
}

// FuzzStream feeds arbitrary streams to the adapter, under a response cap
// of any size: it must not panic, must end with done or error, and every
// event and the message must encode; a response cut by the cap says so.
func FuzzStream(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.sse")
	for _, name := range files {
		b, _ := os.ReadFile(name)
		f.Add(b, uint32(0))
		f.Add(b, uint32(len(b)/2))
	}
	f.Add([]byte("data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":99999999999}]}}]}\n\n"), uint32(0))
	many := &openaitest.Stream{}
	for i := range 200 {
		many.Call(i, fmt.Sprint("c", i), "t").Args(i, "{}")
	}
	f.Add(many.Finish("tool_calls").Bytes(), uint32(1000))
	cut := (&openaitest.Stream{}).Text("a").Reasoning("b").Call(0, "c", "t").Args(0, `{"x":`).Bytes()
	f.Add(append(cut, `data: {"choices":[{"index":0,"del`...), uint32(0))
	f.Fuzz(func(t *testing.T, body []byte, limit uint32) {
		m, err := openai.New(openai.Options{Model: "m", BaseURL: "http://fuzz.invalid/v1", Retries: -1, MaxResponseBytes: int64(limit),
			HTTPClient: &http.Client{Transport: bodyTransport(body)}})
		if err != nil {
			t.Fatal(err)
		}
		var last string
		msg := m.Stream(context.Background(), hello, func(e host.AssistantMessageEvent) {
			if last == host.StreamDone || last == host.StreamError {
				t.Fatalf("event %s after %s", e.Type, last)
			}
			last = e.Type
			if _, err := json.Marshal(e); err != nil {
				t.Fatalf("event %s does not encode: %v", e.Type, err)
			}
		})
		if last != host.StreamDone && last != host.StreamError {
			t.Fatalf("the stream ended with %q", last)
		}
		if !msg.StopReason.Valid() {
			t.Fatalf("stop reason %q", msg.StopReason)
		}
		if strings.Contains(msg.ErrorMessage, "max_response_bytes") && (limit == 0 || len(body) <= int(limit)) {
			t.Fatalf("cut by the cap (%d) a body of %d bytes", limit, len(body))
		}
		if _, err := json.Marshal(msg); err != nil {
			t.Fatalf("message does not encode: %v", err)
		}
	})
}
