package cli_test

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wasmagent/wasmagent/internal/cli"
)

// askConfig writes a configuration whose scripted model calls the tool
// echo once per prompt (n prompts), and whose hook asks about every call.
// The hook's question and the arguments carry escape sequences, which
// must reach the terminal harmless.
func askConfig(t *testing.T, n int) string {
	return askConfigWith(t, n, `Run echo?\u001b]0;pwned\u0007`, `\u001b[2J%d`)
}

// askConfigWith is askConfig with the hook's question and the argument x
// (a format with the call's number) as JSON string contents.
func askConfigWith(t *testing.T, n int, question, x string) string {
	dir := t.TempDir()
	tool := constPlugin(t, map[string]string{
		"describe": `{"abi":1,"name":"tool","tools":[{"name":"echo","description":"e","parameters":{"type":"object"}}]}`,
		"execute":  `{"content":[{"type":"text","text":"echoed"}]}`,
	})
	hook := constPlugin(t, map[string]string{
		"describe":         `{"abi":1,"name":"asker","hooks":["beforeToolCall"]}`,
		"before_tool_call": `{"ask":"` + question + `"}`,
	})
	var turns []string
	for i := range n {
		turns = append(turns,
			fmt.Sprintf(`{"content":[{"type":"toolCall","id":"c%d","name":"echo","arguments":{"x":"`+x+`"}}]}`, i, i),
			fmt.Sprintf(`{"content":"answer %d"}`, i))
	}
	os.WriteFile(filepath.Join(dir, "script.json"), []byte(`{"turns":[`+strings.Join(turns, ",")+`]}`), 0o644)
	path := filepath.Join(dir, "agent.toml")
	os.WriteFile(path, []byte(fmt.Sprintf("[model]\nprovider = \"scripted\"\nscript = \"script.json\"\n[runtime]\ncache_dir = \"off\"\n[[tool]]\nplugin = %q\n[[hook]]\nplugin = %q\n", tool, hook)), 0o644)
	return path
}

// chatProc is a chat command fed through a pipe, as when stdin is not a
// terminal.
type chatProc struct {
	feed        *io.PipeWriter
	out, errOut lockedBuffer
	interrupt   chan struct{}
	done        chan int
}

func startChat(t *testing.T, cfg string) *chatProc {
	in, feed := io.Pipe()
	p := &chatProc{feed: feed, interrupt: make(chan struct{}, 2), done: make(chan int, 1)}
	t.Cleanup(func() { feed.Close() })
	go func() {
		p.done <- cli.Main(context.Background(), []string{"chat", "--config", cfg}, cli.Env{Stdin: in, Stdout: &p.out, Stderr: &p.errOut, Interrupt: p.interrupt})
	}()
	waitFor(t, &p.errOut, "type a prompt")
	return p
}

// lastLine is the last line of s that contains sub.
func lastLine(s, sub string) string {
	lines := strings.Split(s, "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if strings.Contains(lines[i], sub) {
			return lines[i]
		}
	}
	return ""
}

// waitCount waits for n occurrences of s in b.
func waitCount(t *testing.T, b *lockedBuffer, s string, n int) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for strings.Count(b.String(), s) < n {
		if time.Now().After(deadline) {
			t.Fatalf("never saw %q %d times in:\n%s", s, n, b.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func (p *chatProc) wait(t *testing.T) int {
	t.Helper()
	select {
	case code := <-p.done:
		return code
	case <-time.After(20 * time.Second):
		t.Fatal("chat did not quit")
		return 0
	}
}

// A hook's question is shown and the next line answers it: yes runs the
// call, no declines it (the model is told), always runs it and every later
// call of the tool without asking. The answers are not steers.
func TestChatAsk(t *testing.T) {
	p := startChat(t, askConfig(t, 5))
	asked := 0
	for i, c := range []struct {
		answer, result string
	}{
		{"y", "✓ echo"},
		{"no", "✗ echo"},
		{"", "✗ echo"}, // an empty line declines
		{"a", "✓ echo"},
		{"-", "✓ echo"}, // not asked: always
	} {
		io.WriteString(p.feed, fmt.Sprintf("prompt %d\n", i))
		if c.answer != "-" {
			asked++
			waitCount(t, &p.errOut, "allow? [y]es / [n]o / [a]lways for echo this session:", asked)
			io.WriteString(p.feed, c.answer+"\n")
		}
		waitFor(t, &p.out, fmt.Sprintf("answer %d\n", i))
		// The run's summary line ends it: a prompt typed before would be
		// a steer (under load the answer shows well before the end).
		waitCount(t, &p.errOut, " turns · ", i+1)
		if last := lastLine(p.errOut.String(), "echo ("); !strings.HasPrefix(last, c.result) {
			t.Fatalf("call %d (%q): %q, want %q, in:\n%s", i, c.answer, last, c.result, p.errOut.String())
		}
	}
	p.feed.Close()
	if code := p.wait(t); code != cli.ExitOK {
		t.Fatalf("exit %d\n%s", code, p.errOut.String())
	}
	errOut := p.errOut.String()
	for _, want := range []string{
		"asks: Run echo?^[]0;pwned^G",
		`echo {"x":"\u001b[2J0"}`,
		"not approved (p asked: Run echo?",
		"answer: no)",
		"approved (always for echo)",
	} {
		if !strings.Contains(errOut, want) {
			t.Errorf("no %q in stderr:\n%s", want, errOut)
		}
	}
	if n := strings.Count(errOut, "allow?"); n != 4 {
		t.Errorf("asked %d times, want 4 (the fourth call is approved by always):\n%s", n, errOut)
	}
	if n := strings.Count(errOut, "✓ echo"); n != 3 {
		t.Errorf("echo ran %d times, want 3:\n%s", n, errOut)
	}
	if strings.Contains(errOut, "(steering)") || strings.ContainsAny(errOut+p.out.String(), "\x1b\x07") {
		t.Errorf("an answer steered, or an escape reached the terminal:\n%q", errOut)
	}
}

// Ctrl-C while a question is pending declines it and aborts the run; the
// tool does not run.
func TestChatAskInterrupt(t *testing.T) {
	p := startChat(t, askConfig(t, 1))
	io.WriteString(p.feed, "prompt\n")
	waitFor(t, &p.errOut, "allow?")
	p.interrupt <- struct{}{}
	waitFor(t, &p.errOut, "(no answer: declined)")
	waitFor(t, &p.errOut, "(aborted; Ctrl-C again to quit)")
	p.interrupt <- struct{}{}
	if code := p.wait(t); code != cli.ExitAborted {
		t.Fatalf("exit %d\n%s", code, p.errOut.String())
	}
	if errOut := p.errOut.String(); strings.Contains(errOut, "✓ echo") {
		t.Fatalf("the declined call ran:\n%s", errOut)
	}
}

// A long question and long arguments are clipped: a hook or a model
// cannot flood the terminal the user answers on.
func TestChatAskClipped(t *testing.T) {
	p := startChat(t, askConfigWith(t, 1, strings.Repeat("why? ", 5000), "%d"+strings.Repeat("x", 200000)))
	io.WriteString(p.feed, "prompt\n")
	waitFor(t, &p.errOut, "allow?")
	io.WriteString(p.feed, "y\n")
	waitFor(t, &p.out, "answer 0")
	p.feed.Close()
	p.wait(t)
	q := p.errOut.String()
	q = q[strings.Index(q, "asks: "):strings.Index(q, "allow?")]
	if len(q) > 4000 || !strings.Contains(q, "why? why?") || !strings.Contains(q, `{"x":"0xxx`) || !strings.Contains(q, "… (200,009 bytes)") {
		t.Fatalf("the question shown is %d bytes:\n%s", len(q), q[len(q)-300:])
	}
}
