package main_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/wasmagent/wasmagent/internal/wasmbuild"
)

var binary string

// TestMain builds the binary the tests run as a child. The tests that only
// wait on their children (the run and crash tests, whose CPU is the
// children's, outside this race-instrumented process) call t.Parallel;
// the terminal tests, which time keystrokes, and TestRunJSONBigArgument,
// which reads megabytes of events itself, run alone.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "wasmagent-e2e-")
	if err != nil {
		panic(err)
	}
	// The sessions of every child process go to a temporary state
	// directory, never the user's.
	os.Setenv("XDG_STATE_HOME", filepath.Join(dir, "state"))
	binary, err = wasmbuild.Command("cmd/wasmagent")
	if err != nil {
		fmt.Fprintf(os.Stderr, "building wasmagent: %v\n", err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

func sse(w http.ResponseWriter, chunks ...string) {
	w.Header().Set("Content-Type", "text/event-stream")
	for _, c := range chunks {
		fmt.Fprintf(w, "data: %s\n\n", c)
		w.(http.Flusher).Flush()
	}
}

func chunk(delta string, finish string) string {
	f := "null"
	if finish != "" {
		f = `"` + finish + `"`
	}
	return `{"id":"c","object":"chat.completion.chunk","created":1,"model":"gpt-test","choices":[{"index":0,"delta":` + delta + `,"finish_reason":` + f + `}]}`
}

// openAI is a server that asks for two tool calls in parallel (calc and
// read), then answers from their results.
func openAI(t *testing.T) (*httptest.Server, *atomic.Int32) {
	var n atomic.Int32
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer sk-e2e" {
			w.WriteHeader(http.StatusUnauthorized)
			io.WriteString(w, `{"error":{"message":"bad key"}}`)
			return
		}
		var body struct {
			Messages []struct {
				Role    string `json:"role"`
				Content any    `json:"content"`
			} `json:"messages"`
		}
		json.NewDecoder(r.Body).Decode(&body)
		switch n.Add(1) {
		case 1:
			sse(w,
				chunk(`{"role":"assistant","tool_calls":[{"index":0,"id":"call_a","type":"function","function":{"name":"calc","arguments":""}}]}`, ""),
				chunk(`{"tool_calls":[{"index":1,"id":"call_b","type":"function","function":{"name":"read","arguments":"{\"path\":"}}]}`, ""),
				chunk(`{"tool_calls":[{"index":0,"function":{"arguments":"{\"expression\":\"6*7\"}"}}]}`, ""),
				chunk(`{"tool_calls":[{"index":1,"function":{"arguments":"\"hello.txt\"}"}}]}`, ""),
				chunk(`{}`, "tool_calls"), "[DONE]")
		default:
			var results []string
			for _, m := range body.Messages {
				if m.Role == "tool" {
					results = append(results, fmt.Sprint(m.Content))
				}
			}
			answer := fmt.Sprintf("calc said %s; the file says %s.", firstWord(results, 0), firstWord(results, 1))
			sse(w, chunk(`{"role":"assistant","content":`+quote(answer)+`}`, ""), chunk(`{}`, "stop"), "[DONE]")
		}
	}))
	t.Cleanup(s.Close)
	return s, &n
}

func quote(s string) string { b, _ := json.Marshal(s); return string(b) }

func firstWord(results []string, i int) string {
	if i >= len(results) {
		return "nothing"
	}
	f := strings.Fields(results[i])
	return f[len(f)-1]
}

// config writes an agent.toml for a server URL with the calc and fs
// plugins, and a workspace with hello.txt.
func config(t *testing.T, url string) string {
	dir := t.TempDir()
	os.Mkdir(filepath.Join(dir, "ws"), 0o755)
	os.WriteFile(filepath.Join(dir, "ws", "hello.txt"), []byte("world\n"), 0o644)
	cfg := fmt.Sprintf(`
[model]
provider = "openai"
name = "gpt-test"
base_url = %q
api_key_env = "WA_E2E_KEY"
retries = 0

[runtime]
cache_dir = %q

[[tool]]
plugin = %q

[[tool]]
plugin = %q
[[tool.grants.dirs]]
host = "ws"
guest = "/work"
`, url+"/v1", wasmbuild.TestCacheDir(), wasmbuild.ForTest(t, "plugins/calc"), wasmbuild.ForTest(t, "plugins/fs"))
	path := filepath.Join(dir, "agent.toml")
	os.WriteFile(path, []byte(cfg), 0o644)
	return path
}

func run(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Env = append(os.Environ(), "WA_E2E_KEY=sk-e2e")
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	code = cmd.ProcessState.ExitCode()
	if err != nil && code < 0 {
		t.Fatal(err)
	}
	return o.String(), e.String(), code
}

func TestRunAnswers(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and plugins")
	}
	t.Parallel() // it waits on a child process (see TestMain)
	s, _ := openAI(t)
	out, errOut, code := run(t, "run", "--config", config(t, s.URL), "What is 6*7, and what is in hello.txt?")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	if strings.TrimSpace(out) != "calc said 42; the file says world." {
		t.Fatalf("stdout %q\nstderr %s", out, errOut)
	}
	if !strings.Contains(errOut, "✓ calc") || !strings.Contains(errOut, "✓ read") {
		t.Fatalf("stderr:\n%s", errOut)
	}
}

// --json prints pi's events in pi's order.
func TestRunJSON(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and plugins")
	}
	t.Parallel() // it waits on a child process (see TestMain)
	s, _ := openAI(t)
	out, errOut, code := run(t, "run", "--json", "--config", config(t, s.URL), "go")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	var types []string
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var e struct {
			Type    string `json:"type"`
			Message struct {
				Role string `json:"role"`
			} `json:"message"`
			ToolName string `json:"toolName"`
		}
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatalf("not JSON: %q", line)
		}
		switch {
		case e.Type == "message_update":
			continue
		case strings.HasPrefix(e.Type, "message_"):
			types = append(types, e.Type+":"+e.Message.Role)
		case e.Type == "tool_execution_start":
			types = append(types, e.Type+":"+e.ToolName)
		case e.Type == "tool_execution_end":
			types = append(types, e.Type)
		default:
			types = append(types, e.Type)
		}
	}
	want := []string{"agent_start", "turn_start", "message_start:user", "message_end:user",
		"message_start:assistant", "message_end:assistant",
		"tool_execution_start:calc", "tool_execution_start:read", "tool_execution_end", "tool_execution_end",
		"message_start:toolResult", "message_end:toolResult", "message_start:toolResult", "message_end:toolResult",
		"turn_end", "turn_start", "message_start:assistant", "message_end:assistant", "turn_end", "agent_end"}
	if strings.Join(types, " ") != strings.Join(want, " ") {
		t.Fatalf("events:\n got %v\nwant %v", types, want)
	}
}

func TestExitCodes(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and plugins")
	}
	t.Parallel() // it waits on a child process (see TestMain)
	fail := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusInternalServerError)
		io.WriteString(w, `{"error":{"message":"the model is down"}}`)
	}))
	defer fail.Close()
	_, errOut, code := run(t, "run", "--config", config(t, fail.URL), "hi")
	if code != 1 || !strings.Contains(errOut, "500 Internal Server Error: the model is down") {
		t.Errorf("server error: exit %d\n%s", code, errOut)
	}
	bad := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sse(w, chunk(`{"content":"half`, ""))
	}))
	defer bad.Close()
	_, errOut, code = run(t, "run", "--config", config(t, bad.URL), "hi")
	if code != 1 || !strings.Contains(errOut, "not valid JSON") {
		t.Errorf("malformed stream: exit %d\n%s", code, errOut)
	}
	dir := t.TempDir()
	broken := filepath.Join(dir, "agent.toml")
	os.WriteFile(broken, []byte("[model]\nprovider = \"openai\"\nnmae = \"x\"\n"), 0o644)
	_, errOut, code = run(t, "run", "--config", broken, "hi")
	if code != 2 || !strings.Contains(errOut, "agent.toml:3: model.nmae: unknown key (did you mean \"name\"?)") {
		t.Errorf("config error: exit %d\n%s", code, errOut)
	}
	if _, _, code := run(t, "run"); code != 2 {
		t.Errorf("no prompt: exit %d", code)
	}
	if out, _, code := run(t, "run", "--help"); code != 0 || !strings.HasPrefix(out, "usage: wasmagent run") {
		t.Errorf("--help: exit %d, stdout %q", code, out)
	}
}

// SIGINT aborts the run: exit 130, promptly, while the server is still
// streaming.
func TestInterrupt(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and plugins")
	}
	release := make(chan struct{})
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sse(w, chunk(`{"role":"assistant","content":"Thinking"}`, ""))
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer slow.Close()
	defer close(release)
	cmd := exec.Command(binary, "run", "--config", config(t, slow.URL), "hi")
	cmd.Env = append(os.Environ(), "WA_E2E_KEY=sk-e2e")
	stdout, _ := cmd.StdoutPipe()
	var errOut bytes.Buffer
	cmd.Stderr = &errOut
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 8)
	if _, err := io.ReadFull(stdout, buf); err != nil || string(buf) != "Thinking" {
		t.Fatalf("first text: %q %v", buf, err)
	}
	cmd.Process.Signal(syscall.SIGINT)
	done := make(chan error, 1)
	go func() { io.Copy(io.Discard, stdout); done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		cmd.Process.Kill()
		t.Fatal("SIGINT did not end the run")
	}
	if code := cmd.ProcessState.ExitCode(); code != 130 {
		t.Fatalf("exit %d\n%s", code, errOut.String())
	}
	// The answer cut short is said to be, before the summary.
	if e := errOut.String(); !strings.Contains(e, "(interrupted)\n") || strings.Index(e, "(interrupted)") > strings.Index(e, " turn") {
		t.Fatalf("stderr does not say the run was interrupted:\n%s", e)
	}
}
