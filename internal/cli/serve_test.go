package cli_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/wasmagent/wasmagent/host/serve"
	"github.com/wasmagent/wasmagent/internal/cli"
)

// serveConfig is a scripted configuration with [serve] keys appended and
// the sessions kept under the test's directory.
func serveConfig(t *testing.T, script, extra string) string {
	t.Helper()
	cfg := scriptedConfig(t, script)
	f, err := os.OpenFile(cfg, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(f, "[sessions]\ndir = \"sessions\"\n[serve]\n%s", extra)
	f.Close()
	return cfg
}

func TestServeRefusesOpenAddressWithoutTokens(t *testing.T) {
	cfg := serveConfig(t, `{"turns":[]}`, "")
	for _, addr := range []string{"0.0.0.0:0", ":0", "192.0.2.1:0"} {
		var out, errOut strings.Builder
		code := cli.Main(context.Background(), []string{"serve", "--config", cfg, "--addr", addr}, cli.Env{Stdout: &out, Stderr: &errOut})
		if code != cli.ExitUsage || !strings.Contains(errOut.String(), "tokens_file") {
			t.Errorf("--addr %s: exit %d, stderr %q", addr, code, errOut.String())
		}
	}
}

func TestServeTokenErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.txt")
	os.WriteFile(bad, []byte("alice my-plain-token-1234567890\n"), 0o600)
	empty := filepath.Join(dir, "empty.txt")
	os.WriteFile(empty, []byte("# nobody yet\n"), 0o600)
	for _, c := range []struct{ extra, want string }{
		{fmt.Sprintf("tokens_file = %q\n", bad), "sha256:"},
		{fmt.Sprintf("tokens_file = %q\n", empty), "holds no token"},
		{fmt.Sprintf("tokens_file = %q\n", filepath.Join(dir, "missing")), "does not exist"},
		{"tokens_env = \"WASMAGENT_TEST_UNSET_TOKENS\"\n", "WASMAGENT_TEST_UNSET_TOKENS"},
		{"addr = \"nonsense\"\n", "serve.addr"},
		{"max_runs = -1\n", "serve.max_runs"},
		{"tokens_env = \"X\"\ntokens_file = \"y\"\n", "not both"},
	} {
		cfg := serveConfig(t, `{"turns":[]}`, c.extra)
		var out, errOut strings.Builder
		code := cli.Main(context.Background(), []string{"serve", "--config", cfg}, cli.Env{Stdout: &out, Stderr: &errOut})
		if code != cli.ExitUsage || !strings.Contains(errOut.String(), c.want) {
			t.Errorf("%q: exit %d, stderr %q, want it to say %q", c.extra, code, errOut.String(), c.want)
		}
		if strings.Contains(errOut.String(), "my-plain-token") {
			t.Errorf("the error shows the token: %s", errOut.String())
		}
	}
}

func TestServeHashToken(t *testing.T) {
	var out, errOut strings.Builder
	tok := "0123456789abcdef0123456789abcdef"
	code := cli.Main(context.Background(), []string{"serve", "--hash-token"}, cli.Env{Stdin: strings.NewReader(tok + "\n"), Stdout: &out, Stderr: &errOut})
	if code != 0 || out.String() != "NAME "+serve.HashToken(tok)+"\n" {
		t.Fatalf("exit %d, out %q, err %q", code, out.String(), errOut.String())
	}
	code = cli.Main(context.Background(), []string{"serve", "--hash-token"}, cli.Env{Stdin: strings.NewReader("short\n"), Stdout: &out, Stderr: &errOut})
	if code != cli.ExitUsage {
		t.Fatalf("a short token: exit %d", code)
	}
}

// TestServeEndToEnd starts "wasmagent serve" with a token, runs a session
// through it, and stops it with an interrupt (SIGTERM's path) while a run
// goes on: the run finishes, the command exits 0.
func TestServeEndToEnd(t *testing.T) {
	tok := "e2e-token-0123456789abcdef"
	dir := t.TempDir()
	tokens := filepath.Join(dir, "tokens.txt")
	os.WriteFile(tokens, []byte("tester "+serve.HashToken(tok)+"\n"), 0o600)
	cfg := serveConfig(t, `{"turns":[{"content":"hello there"},{"content":"slow answer","delayMs":400}]}`,
		fmt.Sprintf("tokens_file = %q\naddr = \"127.0.0.1:0\"\ndrain_timeout = \"10s\"\n", tokens))
	var out lockedBuffer
	var errOut lockedBuffer
	interrupt := make(chan struct{}, 1)
	done := make(chan int, 1)
	go func() {
		done <- cli.Main(context.Background(), []string{"serve", "--config", cfg}, cli.Env{Stdout: &out, Stderr: &errOut, Interrupt: interrupt})
	}()
	waitFor(t, &errOut, "listening on")
	base := regexp.MustCompile(`http://[0-9.:]+`).FindString(errOut.String())
	call := func(method, path, body string) (int, string) {
		req, _ := http.NewRequest(method, base+path, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+tok)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, _ := call("GET", "/v1/sessions", ""); code != 200 {
		t.Fatalf("list: %d", code)
	}
	// The page to watch the sessions is served at / (docs/serve-page.md).
	if code, page := call("GET", "/", ""); code != 200 || !strings.Contains(page, "<!doctype html>") {
		t.Fatalf("GET /: %d, want the page; got %.200q", code, page)
	}
	code, body := call("POST", "/v1/sessions", `{}`)
	var info serve.SessionInfo
	json.Unmarshal([]byte(body), &info)
	if code != 201 {
		t.Fatalf("create: %d %s", code, body)
	}
	if code, body := call("POST", "/v1/sessions/"+info.ID+"/prompt", `{"message":"hi"}`); code != 202 {
		t.Fatalf("prompt: %d %s", code, body)
	}
	waitIdle := func() {
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
			_, body := call("GET", "/v1/sessions/"+info.ID, "")
			if strings.Contains(body, `"isStreaming":false`) {
				return
			}
		}
		t.Fatal("the run did not end")
	}
	waitIdle()
	// /metrics (behind the tokens) counts the run, though [telemetry] is off.
	if code, m := call("GET", "/metrics", ""); code != 200 || !strings.Contains(m, "wasmagent_runs_total") {
		t.Errorf("GET /metrics: %d, want the run counted; got %.300q", code, m)
	}
	call("POST", "/v1/sessions/"+info.ID+"/prompt", `{"message":"slowly"}`)
	interrupt <- struct{}{}
	waitFor(t, &errOut, "stopping")
	if code, body := call("POST", "/v1/sessions", `{}`); code != 503 || !strings.Contains(body, "draining") {
		t.Errorf("create while stopping: %d %s", code, body)
	}
	select {
	case code := <-done:
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errOut.String())
		}
	case <-time.After(20 * time.Second):
		t.Fatal("serve did not stop")
	}
	// The slow run finished before the stop: its answer is in the
	// session, as a server started again on the same state reads it.
	var errAgain lockedBuffer
	again := make(chan struct{}, 1)
	go func() {
		done <- cli.Main(context.Background(), []string{"serve", "--config", cfg}, cli.Env{Stdout: &out, Stderr: &errAgain, Interrupt: again})
	}()
	waitFor(t, &errAgain, "listening on")
	base = regexp.MustCompile(`http://[0-9.:]+`).FindString(errAgain.String())
	if code, body := call("GET", "/v1/sessions/"+info.ID+"/messages", ""); code != 200 || !strings.Contains(body, "slow answer") {
		t.Errorf("the run cut short: %d %s", code, body)
	}
	again <- struct{}{}
	if code := <-done; code != 0 {
		t.Fatalf("exit %d: %s", code, errAgain.String())
	}
}
