package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/wasmagent/wasmagent/internal/syncbuf"
)

// syncBuffer is a bytes.Buffer safe to read while the command writes.
type syncBuffer = syncbuf.Buffer

// slowPlugin is a plugin file that holds whoever loads it for ever, as a
// long compile would: a named pipe with no writer. Its cleanup lets
// whoever still reads it go (an end of file: a load that fails).
func slowPlugin(t *testing.T, dir string) string {
	t.Helper()
	path := filepath.Join(dir, "slow.wasm")
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		t.Skipf("no named pipes here: %v", err)
	}
	t.Cleanup(func() {
		for range 100 {
			f, err := os.OpenFile(path, os.O_WRONLY|syscall.O_NONBLOCK, 0)
			if err != nil {
				return // no reader left
			}
			f.Close()
			time.Sleep(10 * time.Millisecond)
		}
	})
	return path
}

// The command lines of every command of the table, made to load a plugin
// that never finishes loading: --config (for the commands that take it)
// names a configuration with it, FILE.wasm is it, and each command gets
// the arguments it needs to get that far.
func loadingCommandLines(t *testing.T, dir, plugin string) [][]string {
	t.Helper()
	cfg := filepath.Join(dir, "agent.toml")
	os.WriteFile(cfg, []byte("[model]\nprovider = \"openai\"\nname = \"m\"\nbase_url = \"http://127.0.0.1:1/v1\"\n[runtime]\ncache_dir = \"off\"\n[sessions]\ndir = "+
		strconv.Quote(filepath.Join(dir, "sessions"))+"\n[[tool]]\nplugin = "+strconv.Quote(plugin)+"\n"), 0o644)
	extra := map[string][]string{
		"run":             {"hi"},
		"serve":           {"--addr", "127.0.0.1:0"},
		"plugin call":     {plugin, "t", "{}"},
		"plugin inspect":  {plugin},
		"sessions show":   {"nope"},
		"sessions export": {"nope"},
		"sessions rm":     {"nope"},
	}
	leaves, _ := commandPaths(rootGroup, nil)
	var lines [][]string
	for _, path := range leaves {
		help, _, _ := runMain(append(append([]string{}, path...), "--help")...)
		args := append([]string{}, path...)
		if strings.Contains(help, "--config FILE") {
			args = append(args, "--config", cfg)
		}
		args = append(args, extra[strings.Join(path, " ")]...)
		lines = append(lines, args)
		if path[0] == "mcp" {
			lines = append(lines, append(append([]string{}, args...), "--http", "127.0.0.1:0"), append(append([]string{}, args...), "--print-config", "claude"))
		}
	}
	return lines
}

// An interrupt (Ctrl-C, SIGTERM) while plugins load ends every command
// that loads them at once, exit 130, saying so: loading compiles them,
// tens of seconds on a cold cache, and rpc, mcp and serve took interrupts
// only once it was over. A load that takes long says once what it loads.
// Every command of the table is run on a plugin that never finishes
// loading: each must end by itself, or say it is loading and then end at
// the interrupt.
func TestEveryLoadHeedsAnInterrupt(t *testing.T) {
	defer func(d time.Duration) { slowLoad = d }(slowLoad)
	slowLoad = time.Millisecond
	lines := loadingCommandLines(t, t.TempDir(), "slow.wasm")
	if len(lines) < 12 {
		t.Fatalf("only %d command lines", len(lines))
	}
	loading := 0
	for i := range lines {
		dir := t.TempDir()
		args := loadingCommandLines(t, dir, slowPlugin(t, dir))[i]
		name := strings.Join(args, " ")
		interrupt := make(chan struct{}, 1)
		var errOut syncBuffer
		code := make(chan int, 1)
		go func() {
			code <- Main(context.Background(), args, Env{Stdin: strings.NewReader(""), Stdout: &bytes.Buffer{}, Stderr: &errOut, Interrupt: interrupt})
		}()
		deadline := time.After(60 * time.Second)
	wait:
		for {
			select {
			case c := <-code:
				if strings.Contains(errOut.String(), "loading 1 plugin") {
					t.Errorf("%s: exit %d before the interrupt, though loading:\n%s", name, c, errOut.String())
				}
				break wait
			case <-deadline:
				t.Fatalf("%s: neither ended nor said what it loads:\n%s", name, errOut.String())
			case <-time.After(5 * time.Millisecond):
			}
			if !strings.Contains(errOut.String(), "loading 1 plugin (slow.wasm): ") {
				continue
			}
			loading++
			interrupt <- struct{}{}
			select {
			case c := <-code:
				got := errOut.String()
				if c != ExitAborted || !strings.HasSuffix(got, "(interrupted while loading)\n") {
					t.Errorf("%s: exit %d after an interrupt while loading; want 130 saying so:\n%s", name, c, got)
				}
				if n := strings.Count(got, "loading 1 plugin"); n != 1 {
					t.Errorf("%s: said %d times what it loads:\n%s", name, n, got)
				}
			case <-deadline:
				t.Fatalf("%s: an interrupt while loading did not end it:\n%s", name, errOut.String())
			}
			break
		}
	}
	if loading < 9 {
		t.Errorf("only %d commands loaded the plugin", loading)
	}
}

// A model that cannot be made (here: OpenAI without a key) stops run,
// chat, rpc and serve at once, before any plugin is loaded: a new user
// without a key waited for every plugin to compile (tens of seconds on a
// first start) to be told so.
func TestNoKeyBeforeLoading(t *testing.T) {
	dir := t.TempDir()
	plugin := slowPlugin(t, dir)
	cfg := filepath.Join(dir, "agent.toml")
	os.WriteFile(cfg, []byte("[model]\nprovider = \"openai\"\nname = \"m\"\napi_key_env = \"WA_TEST_NO_KEY\"\n[[tool]]\nplugin = "+strconv.Quote(plugin)+"\n"), 0o644)
	t.Setenv("WA_TEST_NO_KEY", "")
	for _, args := range [][]string{{"run", "--no-session", "hi"}, {"chat", "--no-session"}, {"rpc", "--no-session"}, {"serve", "--addr", "127.0.0.1:0"}} {
		args = append(args, "--config", cfg)
		var errOut syncBuffer
		code := make(chan int, 1)
		go func() {
			code <- Main(context.Background(), args, Env{Stdin: strings.NewReader(""), Stdout: &bytes.Buffer{}, Stderr: &errOut})
		}()
		select {
		case c := <-code:
			if c != ExitUsage || !strings.Contains(errOut.String(), "model.api_key_env: the environment variable WA_TEST_NO_KEY is empty or not set") ||
				!strings.Contains(errOut.String(), "hint: export WA_TEST_NO_KEY=… (your key), or for a local server") {
				t.Errorf("%q: exit %d:\n%s", args, c, errOut.String())
			}
		case <-time.After(60 * time.Second):
			t.Fatalf("%q: waited for the plugins to load to say the key is missing:\n%s", args, errOut.String())
		}
	}
}

// A quick load says nothing of loading.
func TestQuickLoadSaysNothing(t *testing.T) {
	cfg := writeTOML(t, "[model]\nprovider = \"openai\"\nname = \"m\"\nbase_url = \"http://127.0.0.1:1/v1\"\n")
	if _, errOut, code := runMain("config", "validate", "--config", cfg); code != ExitOK || errOut != "" {
		t.Errorf("exit %d, stderr %q", code, errOut)
	}
}

func writeTOML(t *testing.T, text string) string {
	path := filepath.Join(t.TempDir(), "agent.toml")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}
