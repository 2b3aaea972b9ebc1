package cli

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A Ctrl-C that comes after Enter but before the agent has begun the run
// aborts that run. Agent.Abort alone finds no run yet and does nothing,
// so the run went on as if never interrupted (and a SIGTERM then waited
// for its whole answer). The run is held before it begins until the
// Ctrl-C has been taken; the model's answer must never be shown.
func TestChatCtrlCBeforeTheRunBegins(t *testing.T) {
	for _, console := range []bool{true, false} {
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, "script.json"), []byte(`{"turns":[{"content":"an answer nobody waited for"}]}`), 0o644)
		cfg := filepath.Join(dir, "agent.toml")
		os.WriteFile(cfg, []byte("[model]\nprovider = \"scripted\"\nscript = \"script.json\"\n[runtime]\ncache_dir = \"off\"\n"), 0o644)
		in, keys := io.Pipe()
		var out, errOut syncBuffer
		interrupt := make(chan struct{}, 1)
		env := Env{Stdin: in, Stdout: &out, Stderr: &errOut, Interrupt: interrupt}
		enter, ctrlC := "\n", func() { interrupt <- struct{}{} }
		if console {
			env.Console, enter = fakeConsole{}, "\r"
			ctrlC = func() { io.WriteString(keys, "\x03") }
		}
		both := func() string { return out.String() + errOut.String() }
		held, release := make(chan struct{}), make(chan struct{})
		runBegins = func() { close(held); <-release }
		code := make(chan int, 1)
		go func() { code <- Main(context.Background(), []string{"chat", "--no-session", "--config", cfg}, env) }()
		waitOut(t, &errOut, func(string) bool { return strings.Contains(both(), "type a prompt") })
		io.WriteString(keys, "hello"+enter)
		<-held
		ctrlC()
		waitOut(t, &errOut, func(string) bool { return strings.Contains(both(), "(aborted") })
		close(release)
		waitOut(t, &errOut, func(string) bool { return strings.Contains(both(), " tool calls · ") })
		keys.Close()
		if c := <-code; c != ExitOK {
			t.Errorf("console %v: exit %d at end of input, want 0", console, c)
		}
		if strings.Contains(both(), "nobody waited") {
			t.Errorf("console %v: the run went on after Ctrl-C:\n%s", console, both())
		}
	}
	runBegins = func() {}
}
