//go:build linux

package main_test

import (
	"testing"
	"time"
)

// Idle at its prompt, chat writes nothing to the terminal: it redrew the
// prompt row at every tick of the spinner, ten times a second, a stream
// that never stopped (over SSH, a terminal's selection and scrollback
// disturbed by each). Checked at the first prompt and after a run, over
// a second (ten ticks), after the screen has settled.
func TestChatIdleWritesNothing(t *testing.T) {
	c := startChat(t, `{"turns":[{"content":"an answer"}]}`)
	quiet := func(when string) {
		t.Helper()
		time.Sleep(300 * time.Millisecond) // (what was on its way)
		before := len(c.raw.String())
		time.Sleep(time.Second)
		if after := c.raw.String(); len(after) != before {
			t.Fatalf("%s: chat wrote %q while idle", when, after[before:])
		}
	}
	c.waitPrompt("")
	quiet("at the first prompt")
	c.keys("hi\r")
	c.waitText("an answer")
	c.waitText("1 turn")
	c.waitPrompt("")
	quiet("after a run")
	c.keys("\x04")
	if code := c.exit(); code != 0 {
		t.Fatalf("exit %d:\n%s", code, c.vt.screen())
	}
}
