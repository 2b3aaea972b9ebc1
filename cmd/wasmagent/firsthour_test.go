package main_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/wasmagent/wasmagent/internal/wasmbuild"
)

// echoModel answers every request with the text of its last user message.
func echoModel(t *testing.T) *httptest.Server {
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			Messages []struct {
				Role    string `json:"role"`
				Content any    `json:"content"`
			} `json:"messages"`
		}
		json.NewDecoder(r.Body).Decode(&body)
		last := ""
		for _, m := range body.Messages {
			if m.Role != "user" {
				continue
			}
			switch c := m.Content.(type) {
			case string:
				last = c
			case []any:
				for _, part := range c {
					if p, ok := part.(map[string]any); ok && p["type"] == "text" {
						last, _ = p["text"].(string)
					}
				}
			}
		}
		sse(w, chunk(`{"role":"assistant","content":`+quote(last)+`}`, ""), chunk(`{}`, "stop"), "[DONE]")
	}))
	t.Cleanup(s.Close)
	return s
}

func echoConfig(t *testing.T, url string) string {
	path := filepath.Join(t.TempDir(), "agent.toml")
	os.WriteFile(path, []byte("[model]\nprovider = \"openai\"\nname = \"m\"\nbase_url = "+quote(url+"/v1")+"\nretries = 0\n"), 0o644)
	return path
}

// "git diff | wasmagent run - 'review this'": stdin's content where an
// argument is "-", then the words. Arguments without "-" never read
// stdin: a pipe its parent leaves open (Python's Popen(stdin=PIPE), Go's
// StdinPipe) does not hang the run, and a shell loop's input is not eaten.
func TestRunPipedStdin(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	t.Parallel() // it waits on child processes (see TestMain)
	cfg := echoConfig(t, echoModel(t).URL)

	cmd := exec.Command(binary, "run", "--no-session", "--config", cfg, "-", "review", "this")
	cmd.Stdin = strings.NewReader("+added line\n-removed line\n") // a pipe
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		t.Fatalf("%v\n%s", err, errOut.String())
	}
	if want := "+added line\n-removed line\n\nreview this\n"; out.String() != want {
		t.Fatalf("the model got %q, want %q\n%s", out.String(), want, errOut.String())
	}

	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close() // open, and never written, while the run runs
	cmd = exec.Command(binary, "run", "--no-session", "--config", cfg, "just this")
	cmd.Stdin = r
	out.Reset()
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	r.Close()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil || out.String() != "just this\n" {
			t.Fatalf("%v: stdout %q\n%s", err, out.String(), errOut.String())
		}
	case <-time.After(60 * time.Second):
		cmd.Process.Kill()
		t.Fatal("run with a PROMPT waited on a stdin pipe left open")
	}
}

// In a directory without agent.toml, every command that needs one says
// where it looked and shows the smallest configuration, which works as
// shown once base_url names the server.
func TestNoConfigurationHere(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	t.Parallel() // it waits on child processes (see TestMain)
	dir := t.TempDir()
	env := append(os.Environ(), "WASMAGENT_CONFIG=")
	var snippet string
	for _, args := range [][]string{{"run", "hi"}, {"chat"}, {"tools"}, {"config", "validate"}, {"rpc"}, {"mcp"}} {
		cmd := exec.Command(binary, args...)
		cmd.Dir, cmd.Env = dir, env
		var errOut bytes.Buffer
		cmd.Stderr = &errOut
		cmd.Run()
		if code := cmd.ProcessState.ExitCode(); code != 2 {
			t.Errorf("%q: exit %d", args, code)
		}
		got := errOut.String()
		if !strings.Contains(got, filepath.Join(dir, "agent.toml")+" does not exist") || !strings.Contains(got, "--config FILE") {
			t.Errorf("%q: does not say where it looked and how to name one:\n%s", args, got)
		}
		snippet = got
	}
	var toml []string
	for _, l := range strings.Split(snippet, "\n") {
		if strings.HasPrefix(l, "  ") {
			toml = append(toml, strings.TrimSpace(l))
		}
	}
	if len(toml) < 3 {
		t.Fatalf("no configuration shown:\n%s", snippet)
	}
	s := echoModel(t)
	text := regexp.MustCompile(`(?m)^# base_url = "[^"]*"`).ReplaceAllString(strings.Join(toml, "\n"), "base_url = "+quote(s.URL+"/v1"))
	if !strings.Contains(text, s.URL) {
		t.Fatalf("the configuration shown has no base_url line to fill in:\n%s", text)
	}
	os.WriteFile(filepath.Join(dir, "agent.toml"), []byte(text+"\n"), 0o644)
	cmd := exec.Command(binary, "run", "--no-session", "hello")
	cmd.Dir, cmd.Env = dir, env
	out, err := cmd.Output()
	if err != nil || string(out) != "hello\n" {
		t.Fatalf("the configuration shown does not run: %v, stdout %q\n%s", err, out, text)
	}
}

// A home where nothing can be made (read-only, or its cache and state
// directories not directories): the compilation cache is a cache, so
// every command goes on without it, saying so once where plugins are
// compiled; sessions are what the user asked to keep, so a run that would
// keep one is refused before the model is asked (it failed at the first
// message, exit 1, as if the model had), naming the ways out.
func TestUnwritableHome(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and a plugin")
	}
	t.Parallel() // it waits on child processes (see TestMain)
	dir := t.TempDir()
	blocker := filepath.Join(dir, "not-a-directory")
	os.WriteFile(blocker, nil, 0o644)
	s := echoModel(t)
	// Nothing is cached here, so every command compiles its plugin:
	// the AssemblyScript text plugin (66 KB, milliseconds) where Node
	// built it, else calc (a Go plugin: seconds of CPU each time).
	plugin, tool, args, want := wasmbuild.ForTest(t, "plugins/calc"), "calc", `{"expression":"6*7"}`, `"42"`
	if text, err := wasmbuild.Cached("plugins/text"); err == nil {
		plugin, tool, args, want = text, "count", `{"text":"six seven"}`, `"words": 2`
	}
	cfg := filepath.Join(dir, "agent.toml")
	os.WriteFile(cfg, []byte("[model]\nprovider = \"openai\"\nname = \"m\"\nbase_url = "+quote(s.URL+"/v1")+"\nretries = 0\n[[tool]]\nplugin = "+quote(plugin)+"\n"), 0o644)
	env := append(os.Environ(), "HOME="+blocker, "XDG_CACHE_HOME="+blocker, "XDG_STATE_HOME="+blocker)
	wasmagent := func(args ...string) (string, string, int) {
		cmd := exec.Command(binary, args...)
		cmd.Dir, cmd.Env = dir, env
		var out, errOut bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errOut
		cmd.Run()
		return out.String(), errOut.String(), cmd.ProcessState.ExitCode()
	}
	out, errOut, code := wasmagent("run", "hello")
	if code != 2 || out != "" || !strings.Contains(errOut, "sessions cannot be kept") || !strings.Contains(errOut, "--no-session") || !strings.Contains(errOut, "[sessions] dir") {
		t.Errorf("run where sessions cannot be kept: exit %d, stdout %q\n%s", code, out, errOut)
	}
	out, errOut, code = wasmagent("run", "--no-session", "hello")
	if code != 0 || out != "hello\n" || strings.Count(errOut, "warning: no compilation cache") != 1 || !strings.Contains(errOut, "cache_dir") {
		t.Errorf("run --no-session without a cache: exit %d, stdout %q\n%s", code, out, errOut)
	}
	out, errOut, code = wasmagent("plugin", "call", plugin, tool, args)
	if code != 0 || !strings.Contains(out, want) || !strings.Contains(errOut, "warning: no compilation cache") {
		t.Errorf("plugin call without a cache: exit %d, stdout %q\n%s", code, out, errOut)
	}
}

// Ctrl-C while the configuration loads (plugins compile for tens of
// seconds on a cold cache) ends run at once, exit 130: it was taken only
// once the run began. A plugin file that is a named pipe with no writer
// holds the load for ever, as a long compile would.
func TestInterruptWhileLoading(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	t.Parallel() // it waits on a child process (see TestMain)
	dir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, "slow.wasm"), 0o644); err != nil {
		t.Skipf("no named pipes here: %v", err)
	}
	cfg := filepath.Join(dir, "agent.toml")
	os.WriteFile(cfg, []byte("[model]\nprovider = \"openai\"\nname = \"m\"\nbase_url = \"http://127.0.0.1:1/v1\"\n[runtime]\ncache_dir = \"off\"\n[[tool]]\nplugin = \"slow.wasm\"\n"), 0o644)
	cmd := exec.Command(binary, "run", "--config", cfg, "--no-session", "hi")
	var errOut bytes.Buffer
	cmd.Stderr = &errOut
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	// Until the child has installed its handler, SIGINT would kill it by
	// default (exit -1, not 130): wait a little, then signal until it
	// answers.
	time.Sleep(500 * time.Millisecond)
	deadline := time.After(30 * time.Second)
	for tick := time.NewTicker(200 * time.Millisecond); ; {
		cmd.Process.Signal(syscall.SIGINT)
		select {
		case <-done:
			tick.Stop()
			if code := cmd.ProcessState.ExitCode(); code != 130 && code != -1 {
				t.Fatalf("exit %d\n%s", code, errOut.String())
			}
			if cmd.ProcessState.ExitCode() == -1 {
				t.Skip("killed before its signal handler was installed")
			}
			if !strings.Contains(errOut.String(), "(interrupted while loading)") {
				t.Fatalf("stderr does not say what was interrupted:\n%s", errOut.String())
			}
			return
		case <-tick.C:
		case <-deadline:
			cmd.Process.Kill()
			t.Fatalf("Ctrl-C while loading did not end run:\n%s", errOut.String())
		}
	}
}
