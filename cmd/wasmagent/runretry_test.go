package main_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/wasmagent/wasmagent/internal/cli"
)

// A model request retried after a 429 says so on stderr, and the run ends
// with a summary line: turns, tool calls, tokens, time.
func TestRunRetryAndSummary(t *testing.T) {
	var hits atomic.Int32
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if hits.Add(1) == 1 {
			w.Header().Set("Retry-After-Ms", "10")
			w.WriteHeader(http.StatusTooManyRequests)
			io.WriteString(w, `{"error":{"message":"slow down"}}`)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		for _, c := range []string{
			`{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"hi there"},"finish_reason":null}]}`,
			`{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`,
			`{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[],"usage":{"prompt_tokens":1234,"completion_tokens":5,"total_tokens":1239,"prompt_tokens_details":{"cached_tokens":1000}}}`,
			`[DONE]`,
		} {
			fmt.Fprintf(w, "data: %s\n\n", c)
		}
	}))
	defer s.Close()
	dir := t.TempDir()
	cfg := filepath.Join(dir, "agent.toml")
	os.WriteFile(cfg, []byte(fmt.Sprintf("[model]\nprovider = \"openai\"\nname = \"m\"\nbase_url = %q\nretries = 2\n[runtime]\ncache_dir = \"off\"\n", s.URL+"/v1")), 0o644)
	var out, errOut lockedBuffer
	code := cli.Main(context.Background(), []string{"run", "--config", cfg, "hi"}, cli.Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errOut})
	if code != cli.ExitOK || out.String() != "hi there\n" {
		t.Fatalf("exit %d, stdout %q\n%s", code, out.String(), errOut.String())
	}
	lines := strings.Split(strings.TrimSpace(errOut.String()), "\n")
	if lines[0] != "rate limited (429), retry 1/2 in 0s" {
		t.Fatalf("no retry line first:\n%s", errOut.String())
	}
	last := lines[len(lines)-1]
	if !strings.HasPrefix(last, "1 turn · 0 tool calls · tokens 1,234 in (1,000 cached) / 5 out · ") {
		t.Fatalf("summary %q", last)
	}
	if strings.Contains(errOut.String(), "\033") {
		t.Fatalf("ANSI codes when stderr is not a terminal:\n%q", errOut.String())
	}
}
