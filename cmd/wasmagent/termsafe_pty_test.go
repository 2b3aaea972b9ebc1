//go:build linux

package main_test

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// run and config validate on a real terminal, styled (TERM=xterm) or not
// (TERM=dumb), show escape sequences, C1 controls and bidi controls
// visibly and send the terminal none of them: the model's text, its
// error, a tool call's name and arguments, a key of agent.toml.
func TestRunTerminalGetsNoEscapeFromTheModel(t *testing.T) {
	const evil = `x\u001b]52;c;ZXZpbA==\u0007\u001b]0;title\u001b\\\u001bP+q\u001b\\\u009b9;9H\u202e\u2066\u001b[9;9Hy\rz\bw`
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "script.json"), []byte(`{"turns":[
		{"content":[{"type":"text","text":"said `+evil+`"},{"type":"toolCall","id":"c","name":"tool`+evil+`","arguments":{"a":"`+evil+`"}}]},
		{"content":[],"stopReason":"error","errorMessage":"failed `+evil+`"}]}`), 0o644)
	cfg := filepath.Join(dir, "agent.toml")
	os.WriteFile(cfg, []byte("[model]\nprovider = \"scripted\"\nscript = \"script.json\"\n[runtime]\ncache_dir = \"off\"\n[sessions]\ndir = \"s\"\n"), 0o644)
	bad := filepath.Join(dir, "bad.toml")
	os.WriteFile(bad, []byte("[model]\nprovider = \"scripted\"\nscript = \"script.json\"\n\"key "+evil+"\" = 1\n"), 0o644)
	for _, termName := range []string{"xterm", "dumb"} {
		out := onTerminal(t, termName, "run", "--config", cfg, "hi") + onTerminal(t, termName, "config", "validate", bad)
		for _, bad := range []string{"\x1b]", "\x1bP", "\a", "\u009b", "\u202e", "\u2066", "\x1b[9;9H", "y\rz", "\b"} {
			if strings.Contains(out, bad) {
				t.Fatalf("TERM=%s: %q reaches the terminal:\n%q", termName, bad, out)
			}
		}
		for _, shown := range []string{"said x^[]52;c;ZXZpbA==^G", "tool", "failed x^[]52", "<U+202E><U+2066>^[[9;9Hy^Mz^Hw", "key x^[]52"} {
			if !strings.Contains(out, shown) {
				t.Fatalf("TERM=%s: %q is not shown:\n%q", termName, shown, out)
			}
		}
	}
}

// onTerminal runs wasmagent with args on a pseudo-terminal (stdin, stdout
// and stderr) and returns all it wrote, as it wrote it.
func onTerminal(t *testing.T, termName string, args ...string) string {
	t.Helper()
	return onTerminalSized(t, 200, []string{"TERM=" + termName}, args...)
}

// onTerminalSized is onTerminal on a terminal of width columns, with more
// of the environment (NAME=VALUE).
func onTerminalSized(t *testing.T, width int, environ []string, args ...string) string {
	t.Helper()
	master, tty := openPTY(t, width)
	cmd := exec.Command(binary, args...)
	cmd.Env = append(os.Environ(), environ...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = tty, tty, tty
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	tty.Close()
	var raw bytes.Buffer
	copied := make(chan struct{})
	go func() { io.Copy(&raw, master); close(copied) }()
	cmd.Wait()
	<-copied // EIO once the last holder of the terminal is gone
	master.Close()
	return raw.String()
}
