package cli_test

import (
	"context"
	"strings"
	"testing"

	"github.com/wasmagent/wasmagent/internal/cli"
)

// /quit and /exit (pi's and Claude Code's) quit chat, the lines after them
// unread; one word written as a command that is not chat's (/clear, a
// typo) is not sent to the model, and chat says so, with the command it
// likely meant. All of them were prompts: the model was asked "/quit".
func TestChatQuitAndUnknownCommands(t *testing.T) {
	cfg := scriptedConfig(t, `{"turns":[{"content":"an answer"}]}`)
	for _, quit := range []string{"/quit", "/exit", "  /quit  "} {
		var out, errOut lockedBuffer
		in := "/clear\n/quti\n/help\n" + quit + "\nhello\n"
		code := cli.Main(context.Background(), []string{"chat", "--no-session", "--config", cfg},
			cli.Env{Stdin: strings.NewReader(in), Stdout: &out, Stderr: &errOut, Interrupt: make(chan struct{})})
		got := errOut.String()
		if code != cli.ExitOK || out.String() != "" {
			t.Fatalf("%q: exit %d, the model answered %q:\n%s", quit, code, out.String(), got)
		}
		for _, want := range []string{"/clear is not a command here: /new starts a new session", "/quti is not a command (did you mean /quit?)", "/quit ", "also /exit"} {
			if !strings.Contains(got, want) {
				t.Errorf("%q: stderr does not say %q:\n%s", quit, want, got)
			}
		}
		if strings.Contains(got, "  /exit") {
			t.Errorf("/help lists /exit on a line of its own:\n%s", got)
		}
	}
	// A line with more than one word is a prompt, slash or not.
	var out, errOut lockedBuffer
	cli.Main(context.Background(), []string{"chat", "--no-session", "--config", cfg},
		cli.Env{Stdin: strings.NewReader("/etc/hosts: what is this?\n"), Stdout: &out, Stderr: &errOut, Interrupt: make(chan struct{})})
	if out.String() != "an answer\n" {
		t.Fatalf("a path as a prompt: stdout %q:\n%s", out.String(), errOut.String())
	}
}
