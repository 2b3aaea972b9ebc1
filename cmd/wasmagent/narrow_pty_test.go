//go:build linux

package main_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A line redrawn in place stays within one row of the terminal, however
// narrow: run's live line (a wrapped one leaves its first rows behind at
// every redraw, since the redraw clears the cursor's row only) and chat's
// prompt (the line editor writes a prompt wider than the row in pieces,
// cutting its escape codes). NO_COLOR leaves the styles out.
func TestRunLiveLineFitsTheTerminal(t *testing.T) {
	dir := t.TempDir()
	// Reasoning long enough for the live line's last words to fill it,
	// streamed slowly enough for the spinner to redraw it many times.
	thinking := strings.Repeat("weighing the options one by one ", 8)
	os.WriteFile(filepath.Join(dir, "script.json"), []byte(`{"chunkTokens":1,"turns":[{"chunkDelayMs":15,"content":[
		{"type":"thinking","thinking":"`+thinking+`"},{"type":"text","text":"done"}]}]}`), 0o644)
	cfg := filepath.Join(dir, "agent.toml")
	os.WriteFile(cfg, []byte("[model]\nprovider = \"scripted\"\nscript = \"script.json\"\n[runtime]\ncache_dir = \"off\"\n[sessions]\ndir = \"s\"\n"), 0o644)
	for _, width := range []int{24, 80} {
		raw := onTerminalSized(t, width, []string{"TERM=xterm"}, "run", "--config", cfg, "hi")
		v := newVT(width)
		v.Write([]byte(raw))
		sc := v.screen()
		for _, live := range []string{"weighing", "thinking"} {
			if got := rows(sc, live); len(got) > 0 {
				t.Errorf("%d columns: rows of the live line stayed on the screen: %q\n%s", width, got, sc)
			}
		}
		if !strings.Contains(sc, "done") || len(rows(sc, "(thought for")) != 1 {
			t.Errorf("%d columns: the answer or the reasoning's summary is missing:\n%s", width, sc)
		}
		if !strings.Contains(raw, "\x1b[2m") {
			t.Errorf("%d columns: the summary is not faint:\n%q", width, raw)
		}
	}
	if raw := onTerminalSized(t, 80, []string{"TERM=xterm", "NO_COLOR=1"}, "run", "--config", cfg, "hi"); strings.Contains(raw, "\x1b[2m") || !strings.Contains(raw, "1 turn") {
		t.Errorf("NO_COLOR: styled output:\n%q", raw)
	}
}

// cutEscape is an escape sequence interrupted by a line break.
var cutEscape = regexp.MustCompile(`\x1b\[[0-9;?]*[\r\n]`)

func TestChatPromptFitsTheTerminal(t *testing.T) {
	for _, width := range []int{12, 24} {
		c := startChatOn(t, `{"chunkTokens":1,"turns":[{"content":"one two three four five six","chunkDelayMs":150}]}`, "", width)
		c.waitPrompt("")
		c.keys("hi\r")
		c.waitFor("the busy status", func(string) bool {
			return strings.Contains(c.vt.cursorLine(), "›") && !strings.HasPrefix(c.vt.cursorLine(), "› hi")
		})
		c.waitText("six")
		c.waitPrompt("")
		c.keys("\x04")
		if code := c.exit(); code != 0 {
			t.Fatalf("%d columns: exit %d:\n%s", width, code, c.vt.screen())
		}
		if raw := c.raw.String(); cutEscape.MatchString(raw) {
			t.Fatalf("%d columns: an escape sequence is cut by a line break: %q\n%q", width, cutEscape.FindString(raw), raw)
		}
	}
	c := startChatOn(t, `{"turns":[{"content":"plain"}]}`, "", 80, "NO_COLOR=1")
	c.waitPrompt("")
	c.keys("hi\r")
	c.waitText("1 turn")
	c.keys("\x04")
	if code := c.exit(); code != 0 {
		t.Fatalf("NO_COLOR: exit %d:\n%s", code, c.vt.screen())
	}
	if raw := c.raw.String(); strings.Contains(raw, "\x1b[1m") || strings.Contains(raw, "\x1b[2m") {
		t.Fatalf("NO_COLOR: styled output:\n%q", raw)
	}
}

// Ctrl-C on chat's terminal while the configuration loads ends chat, exit
// 130: the terminal went raw before loading, so Ctrl-C was a byte nobody
// read until the load ended. (The load is held for ever by a plugin file
// that is a named pipe with no writer, as a long compile would hold it.)
func TestChatInterruptWhileLoading(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "slow.wasm")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("no named pipes here: %v", err)
	}
	c := startChatOn(t, `{"turns":[{"content":"never"}]}`, "[[tool]]\nplugin = "+strconv.Quote(fifo)+"\n", 80)
	time.Sleep(500 * time.Millisecond) // (its SIGINT handler, before which Ctrl-C kills it)
	c.keys("\x03")
	if code := c.exit(); code != 130 && code != -1 {
		t.Fatalf("exit %d:\n%s", code, c.vt.screen())
	} else if code == -1 {
		t.Skip("killed before its signal handler was installed")
	}
	// What it wrote before exiting may still be on its way from the
	// terminal to the screen.
	c.waitText("(interrupted while loading)")
}

// Ctrl-C on chat's terminal during /reload ends the reload (plugins that
// compile for tens of seconds, here one that never loads) and keeps the
// configuration chat had: in raw mode Ctrl-C is a key, which waited
// unread until the load ended. The reload says what it loads once it is
// slow.
func TestChatReloadInterrupt(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "slow.wasm")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("no named pipes here: %v", err)
	}
	c := startChatOn(t, `{"turns":[{"content":"still here"}]}`, "", 80)
	c.waitPrompt("")
	cfg := c.cmd.Args[len(c.cmd.Args)-1]
	f, err := os.OpenFile(cfg, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("[[tool]]\nplugin = " + strconv.Quote(fifo) + "\n")
	f.Close()
	c.keys("/reload\r")
	c.waitText("loading 1 plugin (slow.wasm)")
	c.keys("\x03")
	c.waitText("(reload interrupted: the previous configuration stays)")
	c.waitPrompt("")
	c.keys("hi\r")
	c.waitText("still here")
	c.waitPrompt("")
	c.keys("\x04")
	if code := c.exit(); code != 0 {
		t.Fatalf("exit %d:\n%s", code, c.vt.screen())
	}
}

// SIGTERM during /reload on a terminal ends chat, exit 130, as it ends
// chat at any other time: in raw mode only signals reach the command's
// interrupt, and the reload's wait heard only the Ctrl-C key, so a
// kill waited for the plugins to compile (here: for ever).
func TestChatReloadSIGTERM(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "slow.wasm")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("no named pipes here: %v", err)
	}
	c := startChatOn(t, `{"turns":[{"content":"still here"}]}`, "", 80)
	c.waitPrompt("")
	cfg := c.cmd.Args[len(c.cmd.Args)-1]
	f, err := os.OpenFile(cfg, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("[[tool]]\nplugin = " + strconv.Quote(fifo) + "\n")
	f.Close()
	c.keys("/reload\r")
	c.waitText("loading 1 plugin (slow.wasm)")
	c.cmd.Process.Signal(syscall.SIGTERM)
	if code := c.exit(); code != 130 {
		t.Fatalf("exit %d after SIGTERM during /reload, want 130:\n%s", code, c.vt.screen())
	}
}
