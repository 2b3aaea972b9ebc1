package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// fakeConsole is a terminal for chat's line editor made of a pipe: what
// is written to stdin are keys (Enter is \r, Ctrl-C the byte 3).
type fakeConsole struct{}

func (fakeConsole) MakeRaw() (func(), error) { return func() {}, nil }
func (fakeConsole) Size() (int, int, error)  { return 80, 24, nil }
func (fakeConsole) Resized() <-chan struct{} { return nil }

// SIGTERM ends chat, whatever it waits for — at the prompt, while a run
// streams, while /reload loads plugins — on a terminal (where Ctrl-C is
// a key and an interrupt only comes from a signal) and on plain lines:
// exit 130, at once. A SIGTERM was taken as one Ctrl-C: at the prompt it
// asked for a second, during a run it only aborted the run, and during
// /reload on a terminal nothing heard it until the plugins had loaded.
// As main does, a SIGTERM closes Terminate and sends an interrupt.
func TestChatEndsAtSIGTERM(t *testing.T) {
	defer func(d time.Duration) { slowLoad = d }(slowLoad)
	slowLoad = time.Millisecond
	for _, console := range []bool{true, false} {
		for _, state := range []string{"idle", "running", "reloading"} {
			name := fmt.Sprintf("%s, console %v", state, console)
			dir := t.TempDir()
			os.WriteFile(filepath.Join(dir, "script.json"), []byte(`{"chunkTokens":1,"turns":[{"content":"first words never finished","chunkDelayMs":30000}]}`), 0o644)
			cfg := filepath.Join(dir, "agent.toml")
			os.WriteFile(cfg, []byte("[model]\nprovider = \"scripted\"\nscript = \"script.json\"\n[runtime]\ncache_dir = \"off\"\n"), 0o644)
			in, keys := io.Pipe()
			var out, errOut syncBuffer
			interrupt := make(chan struct{}, 2)
			terminate := make(chan struct{})
			env := Env{Stdin: in, Stdout: &out, Stderr: &errOut, Interrupt: interrupt, Terminate: terminate}
			enter := "\n"
			if console {
				env.Console, enter = fakeConsole{}, "\r"
			}
			code := make(chan int, 1)
			go func() { code <- Main(context.Background(), []string{"chat", "--no-session", "--config", cfg}, env) }()
			both := func() string { return out.String() + errOut.String() }
			waitOut(t, &errOut, func(string) bool { return strings.Contains(both(), "type a prompt") })
			switch state {
			case "running":
				// A second line steers the run the first started.
				io.WriteString(keys, "hello"+enter+"more"+enter)
				waitOut(t, &errOut, func(string) bool { return strings.Contains(both(), "(steering)") })
			case "reloading":
				f, _ := os.OpenFile(cfg, os.O_APPEND|os.O_WRONLY, 0)
				f.WriteString("[[tool]]\nplugin = " + strconv.Quote(slowPlugin(t, dir)) + "\n")
				f.Close()
				io.WriteString(keys, "/reload"+enter)
				waitOut(t, &errOut, func(string) bool { return strings.Contains(both(), "loading 1 plugin (slow.wasm)") })
			}
			close(terminate)
			interrupt <- struct{}{}
			select {
			case c := <-code:
				if c != ExitAborted {
					t.Errorf("%s: exit %d after SIGTERM, want 130:\n%s", name, c, both())
				}
			case <-time.After(60 * time.Second):
				t.Fatalf("%s: SIGTERM did not end chat:\n%s", name, both())
			}
			keys.Close()
		}
	}
}
