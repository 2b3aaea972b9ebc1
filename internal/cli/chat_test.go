package cli_test

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wasmagent/wasmagent/internal/cli"
	"github.com/wasmagent/wasmagent/internal/syncbuf"
)

// scriptedConfig writes a configuration with a scripted model and no
// plugins.
func scriptedConfig(t *testing.T, script string) string {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "script.json"), []byte(script), 0o644)
	path := filepath.Join(dir, "agent.toml")
	os.WriteFile(path, []byte("[model]\nprovider = \"scripted\"\nscript = \"script.json\"\n[runtime]\ncache_dir = \"off\"\n"), 0o644)
	return path
}

// lockedBuffer is a bytes.Buffer safe to read while the command writes.
type lockedBuffer = syncbuf.Buffer

func waitFor(t *testing.T, b *lockedBuffer, s string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !strings.Contains(b.String(), s) {
		if time.Now().After(deadline) {
			t.Fatalf("never saw %q in:\n%s", s, b.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// A line typed while the agent works steers it; /follow queues a
// follow-up; end of input quits.
func TestChatSteerAndFollow(t *testing.T) {
	cfg := scriptedConfig(t, `{"chunkTokens":1,"turns":[
		{"content":"first answer","chunkDelayMs":800},
		{"content":"steered answer"},
		{"content":"follow-up answer"}]}`)
	in, feed := io.Pipe()
	var out, errOut lockedBuffer
	done := make(chan int, 1)
	go func() {
		done <- cli.Main(context.Background(), []string{"chat", "--config", cfg}, cli.Env{Stdin: in, Stdout: &out, Stderr: &errOut, Interrupt: make(chan struct{})})
	}()
	waitFor(t, &errOut, "type a prompt")
	io.WriteString(feed, "hello\n")
	// The first turn is streaming: a steer now comes after the run has
	// begun (one queued before it would join the first turn, as in pi).
	waitFor(t, &out, "first")
	io.WriteString(feed, "go left instead\n")
	waitFor(t, &errOut, "(steering)")
	waitFor(t, &out, "steered answer")
	io.WriteString(feed, "/follow and then?\n")
	waitFor(t, &out, "follow-up answer")
	feed.Close()
	if code := <-done; code != cli.ExitOK {
		t.Fatalf("exit %d\n%s", code, errOut.String())
	}
	if got := out.String(); got != "first answer\nsteered answer\nfollow-up answer\n" {
		t.Fatalf("stdout %q", got)
	}
}

// Ctrl-C aborts the run; a second Ctrl-C quits with 130.
func TestChatInterrupt(t *testing.T) {
	cfg := scriptedConfig(t, `{"turns":[{"content":"never finished","delayMs":30000}]}`)
	in, feed := io.Pipe()
	defer feed.Close()
	var out, errOut lockedBuffer
	interrupt := make(chan struct{}, 2)
	done := make(chan int, 1)
	go func() {
		done <- cli.Main(context.Background(), []string{"chat", "--config", cfg}, cli.Env{Stdin: in, Stdout: &out, Stderr: &errOut, Interrupt: interrupt})
	}()
	waitFor(t, &errOut, "type a prompt")
	io.WriteString(feed, "hello\n")
	time.Sleep(50 * time.Millisecond)
	interrupt <- struct{}{}
	waitFor(t, &errOut, "(aborted; Ctrl-C again to quit)")
	interrupt <- struct{}{}
	select {
	case code := <-done:
		if code != cli.ExitAborted {
			t.Fatalf("exit %d", code)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("chat did not quit")
	}
}
