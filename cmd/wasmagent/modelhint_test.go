package main_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmagent/wasmagent/internal/cli"
)

// A model request that fails because of the configuration (a wrong
// base_url or model name, a missing or refused key, a server that is down
// or does not speak the API) is followed by a hint that names the keys to
// check and the file they are in, in plain and --json mode (where stdout
// stays event lines only); a 5xx by one that says it is the server's
// failure, a server that never answers by one that names timeout, a 429 by
// one that says to wait (or, out of quota or credit, that waiting may not
// help), a 400 about the model's name or its lack of tools by one that
// names name. Another failure of the server's own (a 400 about the
// request, an error in a 200) is not.
func TestModelErrorHints(t *testing.T) {
	serve := func(status int, ctype, body string) string {
		s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			io.Copy(io.Discard, r.Body)
			w.Header().Set("Content-Type", ctype)
			w.WriteHeader(status)
			io.WriteString(w, body)
		}))
		t.Cleanup(s.Close)
		return s.URL
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	down := "http://" + l.Addr().String()
	l.Close()
	rs := httptest.NewServer(http.RedirectHandler("http://elsewhere.invalid/v1/chat/completions", http.StatusMovedPermanently))
	t.Cleanup(rs.Close)
	redirect := rs.URL
	// A server that takes the request and never answers: the request's
	// timeout (timeout = "1s" below) ends it, whatever the machine's load.
	hung := make(chan struct{})
	hang := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-hung:
		}
	}))
	t.Cleanup(hang.Close)
	t.Cleanup(func() { close(hung) }) // (first: Close waits for the handlers)
	for _, c := range []struct {
		name, url, key, hint string
	}{
		{"model 404", serve(404, "application/json", `{"error":{"message":"The model does not exist"}}`), "k", "no model \"m\", or no chat completions API: check name and base_url"},
		{"path 404", serve(404, "text/html", "<h1>Not Found</h1>"), "k", "check name and base_url"},
		{"no key", serve(401, "application/json", `{"error":{"message":"no key"}}`), "", "no API key was sent: $WA_HINT_KEY is empty"},
		{"bad key", serve(401, "application/json", `{"error":{"message":"bad key"}}`), "k", "refused the key in $WA_HINT_KEY"},
		{"forbidden", serve(403, "application/json", `{"error":{"message":"no"}}`), "k", "refused the key in $WA_HINT_KEY"},
		{"not the API", serve(200, "text/html", "<html>hello</html>"), "k", "answered, but with no event stream: is base_url an OpenAI-compatible API root"},
		{"down", down, "k", "cannot be reached: is the server running"},
		{"a web server", serve(405, "text/html", "<h1>Method Not Allowed</h1>"), "k", "answered, but not as an OpenAI-compatible API: check base_url"},
		{"a web page for 400", serve(400, "text/html", "<h1>Bad Request</h1>"), "k", "answered, but not as an OpenAI-compatible API: check base_url"},
		{"a gateway's page", serve(502, "text/html", "<h1>Bad Gateway</h1>"), "k", "failed on its side, not because of the configuration"},
		{"server error", serve(500, "application/json", `{"error":{"message":"boom"}}`), "k", "failed on its side, not because of the configuration: try again later"},
		{"never answers", hang.URL, "k", "did not answer within timeout"},
		{"plain HTTP", strings.Replace(serve(200, "text/event-stream", ""), "http://", "https://", 1), "k", "speaks plain HTTP: write base_url with http://"},
		{"redirected elsewhere", redirect, "k", "redirects the request: give base_url as the API root the server wants"},
		{"no streaming", serve(200, "application/json", `{"object":"chat.completion","choices":[]}`), "k", "answers without streaming"},
		{"empty answer", serve(200, "text/event-stream", ""), "k", "answered, but with no event stream"},
		{"events not chunks", serve(200, "text/event-stream", "data: hello\n\n"), "k", "answered, but with no event stream"},
		{"200 with an error", serve(200, "application/json", `{"error":{"message":"quota"}}`), "k", ""},
		{"stream cut after text", serve(200, "text/event-stream", "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"hi\"}}]}\n\n"), "k", ""},
		{"server failure", serve(400, "application/json", `{"error":{"message":"context too long"}}`), "k", ""},
		{"model 400", serve(400, "application/json", `{"error":{"message":"Invalid model name passed in model=m"}}`), "k", `has no model "m": check name`},
		{"model 422", serve(422, "application/json", `{"detail":"Unknown model: m"}`), "k", `has no model "m": check name`},
		{"no tools", serve(400, "application/json", `{"error":{"message":"registry.ollama.ai/library/m does not support tools","type":"api_error"}}`), "k", `the model "m" at`},
		{"rate limited", serve(429, "application/json", `{"error":{"message":"Rate limit reached for m on tokens per min (TPM)"}}`), "k", "is rate limiting this key: wait and try again"},
		{"out of quota", serve(429, "application/json", `{"error":{"message":"You exceeded your current quota, please check your plan and billing details.","type":"insufficient_quota"}}`), "k", "is out of quota or credit"},
		{"no credit", serve(402, "application/json", `{"error":{"message":"Insufficient credits"}}`), "k", "is out of quota or credit"},
	} {
		dir := t.TempDir()
		cfg := filepath.Join(dir, "agent.toml")
		os.WriteFile(cfg, []byte(fmt.Sprintf("[model]\nprovider = \"openai\"\nname = \"m\"\nbase_url = %q\napi_key_env = \"WA_HINT_KEY\"\nretries = 0\ntimeout = \"1s\"\n", c.url+"/v1")), 0o644)
		t.Setenv("WA_HINT_KEY", c.key)
		for _, mode := range [][]string{nil, {"--json"}} {
			var out, errOut lockedBuffer
			args := append(append([]string{"run", "--no-session", "--config", cfg}, mode...), "hi")
			code := cli.Main(context.Background(), args, cli.Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errOut})
			name := fmt.Sprintf("%s %q", c.name, mode)
			if code != cli.ExitFailed {
				t.Errorf("%s: exit %d\n%s", name, code, errOut.String())
			}
			hints := strings.Count(errOut.String(), "hint: ")
			switch {
			case c.hint == "" && hints != 0:
				t.Errorf("%s: a hint for a failure of the server's own:\n%s", name, errOut.String())
			case c.hint != "" && (hints != 1 || !strings.Contains(errOut.String(), c.hint) || !strings.Contains(errOut.String(), cfg)):
				t.Errorf("%s: want one hint %q naming %s:\n%s", name, c.hint, cfg, errOut.String())
			}
			if mode != nil {
				sc := bufio.NewScanner(strings.NewReader(out.String()))
				for sc.Scan() {
					if !json.Valid(sc.Bytes()) {
						t.Errorf("%s: stdout line is not JSON: %s", name, sc.Text())
					}
				}
			}
		}
	}
}

// chat says the same hint after a model error, and goes on.
func TestChatModelErrorHint(t *testing.T) {
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.WriteHeader(404)
		io.WriteString(w, `{"error":{"message":"no such model"}}`)
	}))
	defer s.Close()
	cfg := filepath.Join(t.TempDir(), "agent.toml")
	os.WriteFile(cfg, []byte(fmt.Sprintf("[model]\nprovider = \"openai\"\nname = \"m\"\nbase_url = %q\nretries = 0\n", s.URL+"/v1")), 0o644)
	var out, errOut lockedBuffer
	code := cli.Main(context.Background(), []string{"chat", "--no-session", "--config", cfg}, cli.Env{Stdin: strings.NewReader("hi\n"), Stdout: &out, Stderr: &errOut, Interrupt: make(chan struct{})})
	if code != cli.ExitOK || !strings.Contains(errOut.String(), "error: 404") || !strings.Contains(errOut.String(), "hint: "+s.URL+"/v1 has no model \"m\"") {
		t.Fatalf("exit %d:\n%s", code, errOut.String())
	}
}

// A base_url without the API's version, against a server that serves the
// API under /v1 (Ollama, vLLM, llama.cpp, LM Studio) as the commonest
// local servers do, is answered with the base_url to write, and that
// base_url, written as said, works. A root with a version gets the plain
// 404 hint. (The hint said "usually ends in /v1" only.)
func TestModelErrorHintNoVersion(t *testing.T) {
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		if r.URL.Path != "/v1/chat/completions" {
			w.Header().Set("Content-Type", "text/plain")
			w.WriteHeader(404)
			io.WriteString(w, "404 page not found")
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"fine\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n")
	}))
	defer s.Close()
	for _, c := range []struct{ root, hint string }{
		{s.URL, fmt.Sprintf("base_url names no API version; Ollama, vLLM, llama.cpp and LM Studio serve it under /v1: base_url = %q", s.URL+"/v1")},
		{s.URL + "/", fmt.Sprintf("base_url = %q", s.URL+"/v1")},
		{s.URL + "/api", fmt.Sprintf("base_url = %q", s.URL+"/api/v1")},
		{s.URL + "/v2", "has no model \"m\", or no chat completions API"},
	} {
		cfg := filepath.Join(t.TempDir(), "agent.toml")
		os.WriteFile(cfg, []byte(fmt.Sprintf("[model]\nprovider = \"openai\"\nname = \"m\"\nbase_url = %q\nretries = 0\n", c.root)), 0o644)
		var out, errOut lockedBuffer
		code := cli.Main(context.Background(), []string{"run", "--no-session", "--config", cfg, "hi"}, cli.Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errOut})
		if code != cli.ExitFailed || !strings.Contains(errOut.String(), c.hint) {
			t.Fatalf("base_url %s: exit %d, want %q:\n%s", c.root, code, c.hint, errOut.String())
		}
	}
	cfg := filepath.Join(t.TempDir(), "agent.toml")
	os.WriteFile(cfg, []byte(fmt.Sprintf("[model]\nprovider = \"openai\"\nname = \"m\"\nbase_url = %q\nretries = 0\n", s.URL+"/v1")), 0o644)
	var out, errOut lockedBuffer
	if code := cli.Main(context.Background(), []string{"run", "--no-session", "--config", cfg, "hi"}, cli.Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errOut}); code != cli.ExitOK || !strings.Contains(out.String(), "fine") {
		t.Fatalf("the base_url the hint gives: exit %d\n%s%s", code, out.String(), errOut.String())
	}
}
