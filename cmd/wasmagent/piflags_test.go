package main_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wasmagent/wasmagent/internal/cli"
)

// pi's --model and --thinking reach the server as pi's would: the
// request names the model given, and asks for the reasoning effort
// given, over agent.toml's name and thinking; run, chat and rpc alike
// (rpc as pi's RpcClient starts it: --mode rpc --model NAME).
func TestPiFlagsReachTheServer(t *testing.T) {
	var mu sync.Mutex
	var got []string
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			Model  string `json:"model"`
			Effort string `json:"reasoning_effort"`
		}
		b, _ := io.ReadAll(r.Body)
		json.Unmarshal(b, &body)
		mu.Lock()
		got = append(got, body.Model+" "+body.Effort)
		mu.Unlock()
		sse(w, chunk(`{"role":"assistant","content":"ok"}`, ""), chunk(`{}`, "stop"), "[DONE]")
	}))
	defer s.Close()
	cfg := filepath.Join(t.TempDir(), "agent.toml")
	os.WriteFile(cfg, []byte(fmt.Sprintf("[model]\nprovider = \"openai\"\nname = \"configured\"\nbase_url = %q\nretries = 0\n[agent]\nthinking = \"low\"\n", s.URL+"/v1")), 0o644)
	for _, c := range []struct {
		args  []string
		stdin string
		want  string
	}{
		{[]string{"run", "--no-session", "--config", cfg, "hi"}, "", "configured low"},
		{[]string{"run", "--no-session", "--model", "other", "--thinking", "high", "--config", cfg, "hi"}, "", "other high"},
		{[]string{"chat", "--no-session", "--model", "other", "--config", cfg}, "hi\n", "other low"},
		{[]string{"rpc", "--mode", "rpc", "--no-session", "--model", "other", "--thinking", "minimal", "--config", cfg}, `{"type":"prompt","message":"hi"}` + "\n", "other minimal"},
	} {
		mu.Lock()
		got = nil
		mu.Unlock()
		var out, errOut lockedBuffer
		in, feed := io.Pipe()
		done := make(chan int, 1)
		go func() {
			done <- cli.Main(context.Background(), c.args, cli.Env{Stdin: in, Stdout: &out, Stderr: &errOut, Interrupt: make(chan struct{})})
		}()
		if c.stdin != "" {
			io.WriteString(feed, c.stdin)
		}
		if c.args[0] == "rpc" {
			for i := 0; !strings.Contains(out.String(), `"type":"agent_end"`); i++ {
				if i > 20000 {
					t.Fatalf("rpc: no agent_end:\n%s\n%s", out.String(), errOut.String())
				}
				time.Sleep(time.Millisecond)
			}
		}
		feed.Close()
		if code := <-done; code != cli.ExitOK {
			t.Fatalf("%q: exit %d\n%s", c.args, code, errOut.String())
		}
		mu.Lock()
		if len(got) != 1 || got[0] != c.want {
			t.Errorf("%q: the server was asked for %q, want %q", c.args, got, c.want)
		}
		mu.Unlock()
		if !strings.Contains(out.String(), "ok") {
			t.Errorf("%q: stdout %q", c.args, out.String())
		}
	}
}
