//go:build linux

package main_test

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// openPTY opens a pseudo-terminal pair of width columns.
func openPTY(t *testing.T, width int) (master, tty *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	fd := int(m.Fd())
	if err := unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0); err != nil {
		t.Fatal(err)
	}
	n, err := unix.IoctlGetUint32(fd, unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	s, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := unix.IoctlSetWinsize(int(s.Fd()), unix.TIOCSWINSZ, &unix.Winsize{Row: 40, Col: uint16(width)}); err != nil {
		t.Fatal(err)
	}
	return m, s
}

// chatTerm is chat running on a pseudo-terminal, its screen, and keys.
type chatTerm struct {
	t      *testing.T
	cmd    *exec.Cmd
	master *os.File
	vt     *vt
	raw    rawOutput // every byte written, as written
	done   chan error
}

// rawOutput keeps what a terminal was sent.
type rawOutput struct {
	mu sync.Mutex
	b  []byte
}

func (r *rawOutput) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.b = append(r.b, p...)
	return len(p), nil
}

func (r *rawOutput) String() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return string(r.b)
}

func startChat(t *testing.T, script string) *chatTerm { return startChatWith(t, script, "") }

// startChatWith is startChat with more of agent.toml (plugins).
func startChatWith(t *testing.T, script, toml string) *chatTerm {
	return startChatOn(t, script, toml, 100)
}

// startChatOn is startChatWith on a terminal of width columns, with more
// of the environment (NAME=VALUE).
func startChatOn(t *testing.T, script, toml string, width int, environ ...string) *chatTerm {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "script.json"), []byte(script), 0o644)
	cfg := filepath.Join(dir, "agent.toml")
	os.WriteFile(cfg, []byte("[model]\nprovider = \"scripted\"\nscript = \"script.json\"\n[runtime]\ncache_dir = \"off\"\n"+toml), 0o644)
	master, tty := openPTY(t, width)
	c := &chatTerm{t: t, master: master, vt: newVT(width), done: make(chan error, 1)}
	c.cmd = exec.Command(binary, "chat", "--config", cfg)
	c.cmd.Env = append(append(os.Environ(), "TERM=xterm"), environ...)
	c.cmd.Stdin, c.cmd.Stdout, c.cmd.Stderr = tty, tty, tty
	c.cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true}
	if err := c.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	tty.Close()
	go io.Copy(io.MultiWriter(c.vt, &c.raw), master)
	go func() { c.done <- c.cmd.Wait() }()
	t.Cleanup(func() {
		c.cmd.Process.Kill()
		master.Close()
	})
	return c
}

func (c *chatTerm) keys(s string) {
	c.t.Helper()
	if _, err := c.master.WriteString(s); err != nil {
		c.t.Fatal(err)
	}
}

// waitFor waits until the screen satisfies ok (generous: the machine may
// be loaded).
func (c *chatTerm) waitFor(what string, ok func(screen string) bool) {
	c.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !ok(c.vt.screen()) {
		if time.Now().After(deadline) {
			c.t.Fatalf("never saw %s on the screen:\n%s", what, c.vt.screen())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func (c *chatTerm) waitText(s string) {
	c.t.Helper()
	c.waitFor(fmt.Sprintf("%q", s), func(sc string) bool { return strings.Contains(sc, s) })
}

// waitPrompt waits until the cursor's row is the idle prompt followed by
// line.
func (c *chatTerm) waitPrompt(line string) {
	c.t.Helper()
	want := strings.TrimRight("› "+line, " ")
	c.waitFor(fmt.Sprintf("the prompt %q", want), func(string) bool { return c.vt.cursorLine() == want })
}

func (c *chatTerm) exit() int {
	c.t.Helper()
	select {
	case <-c.done:
		return c.cmd.ProcessState.ExitCode()
	case <-time.After(30 * time.Second):
		c.t.Fatalf("chat did not exit:\n%s", c.vt.screen())
		return -1
	}
}

// rows are the screen's rows that contain s.
func rows(screen, s string) []string {
	var out []string
	for _, r := range strings.Split(screen, "\n") {
		if strings.Contains(r, s) {
			out = append(out, r)
		}
	}
	return out
}

// Chat on a terminal: a prompt marker; arrow keys edit the line; up
// recalls history; typing while the answer streams steers without landing
// inside the answer; Ctrl-C aborts a run, clears a line at the prompt, and
// twice on an empty line quits.
func TestChatTerminal(t *testing.T) {
	c := startChat(t, `{"chunkTokens":1,"turns":[
		{"content":"alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu","chunkDelayMs":120},
		{"content":"steered answer"},
		{"content":"second answer"},
		{"content":"never finished","delayMs":60000}]}`)
	c.waitPrompt("")

	// Line editing: "helo", left, "l" → "hello".
	c.keys("helo\x1b[Dl")
	c.waitPrompt("hello")
	c.keys("\r")
	c.waitText("alpha beta")

	// Steering while the answer streams: typed text shows at the prompt,
	// below the answer, and never inside it.
	c.keys("go left")
	c.waitFor("the typed steer at the prompt", func(string) bool { return strings.HasSuffix(c.vt.cursorLine(), "go left") })
	c.keys("\r")
	c.waitText("steered answer")
	c.waitPrompt("")
	sc := c.vt.screen()
	if got := rows(sc, "alpha"); len(got) != 1 || got[0] != "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu" {
		t.Fatalf("the answer's row is %q; screen:\n%s", got, sc)
	}
	if got := rows(sc, "go left"); len(got) != 0 {
		t.Fatalf("the typed steer stayed on screen %q:\n%s", got, sc)
	}
	if len(rows(sc, "(steering)")) != 1 {
		t.Fatalf("no steering note:\n%s", sc)
	}

	// History: up recalls the last lines, down comes back; Ctrl-C at the
	// prompt clears the line.
	c.keys("\x1b[A")
	c.waitPrompt("go left")
	c.keys("\x1b[A")
	c.waitPrompt("hello")
	c.keys("\x1b[B")
	c.waitPrompt("go left")
	c.keys("\x03")
	c.waitPrompt("")
	c.keys("again\r")
	c.waitText("second answer")
	c.waitPrompt("")

	// Ctrl-C while busy aborts the run, and chat goes on.
	c.keys("wait forever\r")
	c.waitFor("the busy status", func(string) bool { return strings.Contains(c.vt.cursorLine(), "waiting for the model") })
	c.keys("\x03")
	c.waitText("(aborted")
	c.waitPrompt("")

	// Ctrl-C on an empty line warns; a second one quits.
	c.keys("\x03")
	c.waitText("Ctrl-C again or Ctrl-D to quit")
	c.keys("\x03")
	if code := c.exit(); code != 130 {
		t.Fatalf("exit %d:\n%s", code, c.vt.screen())
	}
}

// Ctrl-D on an empty line quits with 0, and the terminal's mode is put
// back.
func TestChatTerminalCtrlD(t *testing.T) {
	c := startChat(t, `{"turns":[{"content":"hi"}]}`)
	c.waitPrompt("")
	c.keys("\x04")
	if code := c.exit(); code != 0 {
		t.Fatalf("exit %d:\n%s", code, c.vt.screen())
	}
}

// While the model reasons, the prompt row says so (time, size, last
// words); the reasoning is summarised once done; the run ends with a
// summary line.
func TestChatTerminalStatus(t *testing.T) {
	c := startChat(t, `{"chunkTokens":2,"turns":[{"chunkDelayMs":150,"content":[
		{"type":"thinking","thinking":"first I weigh the options, then I compare their costs and pick one"},
		{"type":"text","text":"pick the second"}]}]}`)
	c.waitPrompt("")
	c.keys("which one?\r")
	c.waitFor("the reasoning on the prompt row", func(string) bool {
		l := c.vt.cursorLine()
		return strings.Contains(l, "thinking") && strings.Contains(l, "chars") && strings.HasSuffix(l, "›")
	})
	c.waitText("pick the second")
	c.waitText("1 turn · 0 tool calls · no token counts from the model")
	c.waitPrompt("")
	sc := c.vt.screen()
	if got := rows(sc, "(thought for "); len(got) != 1 || !strings.HasSuffix(got[0], ", 66 chars)") {
		t.Fatalf("reasoning summary %q:\n%s", got, sc)
	}
	if got := rows(sc, "first I weigh"); len(got) != 0 {
		t.Fatalf("the reasoning stayed on screen %q:\n%s", got, sc)
	}
	c.keys("\x04")
	if code := c.exit(); code != 0 {
		t.Fatalf("exit %d:\n%s", code, sc)
	}
}

// A paste of several lines is one prompt, not a prompt and steers.
func TestChatTerminalPaste(t *testing.T) {
	c := startChat(t, `{"turns":[{"content":"one answer","delayMs":300},{"content":"a second turn"}]}`)
	c.waitPrompt("")
	c.keys("\x1b[200~first line\rsecond line\x1b[201~")
	c.waitPrompt("second line")
	c.keys("\r")
	c.waitText("one answer")
	c.waitText("1 turn · ")
	c.waitPrompt("")
	if sc := c.vt.screen(); strings.Contains(sc, "(steering)") || strings.Contains(sc, "a second turn") {
		t.Fatalf("the paste was split:\n%s", sc)
	}
	c.keys("\x04")
	if code := c.exit(); code != 0 {
		t.Fatalf("exit %d:\n%s", code, c.vt.screen())
	}
}

// After the terminal is resized, the editor wraps at the new width.
func TestChatTerminalResize(t *testing.T) {
	c := startChat(t, `{"turns":[{"content":"hi"}]}`)
	c.waitPrompt("")
	if err := unix.IoctlSetWinsize(int(c.master.Fd()), unix.TIOCSWINSZ, &unix.Winsize{Row: 40, Col: 40}); err != nil {
		t.Fatal(err)
	}
	// The resize reaches chat asynchronously: type until a full row wraps.
	deadline := time.Now().Add(30 * time.Second)
	typed := 0
	wrapped := func() bool {
		sc := c.vt.screen() // one snapshot: the prompt may be mid-redraw
		i := strings.LastIndex(sc, "›")
		return i >= 0 && strings.HasPrefix(sc[i:], "› "+strings.Repeat("x", 38)+"\n")
	}
	for !wrapped() {
		if time.Now().After(deadline) {
			t.Fatalf("never wrapped at 40 columns after %d keys:\n%s", typed, c.vt.screen())
		}
		c.keys("x")
		typed++
		time.Sleep(20 * time.Millisecond)
		if typed > 90 {
			t.Fatalf("no wrap at 40 columns:\n%s", c.vt.screen())
		}
	}
	c.keys("\x15\x04") // Ctrl-U clears the line, Ctrl-D quits
	if code := c.exit(); code != 0 {
		t.Fatalf("exit %d:\n%s", code, c.vt.screen())
	}
}
