package main_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/wasmagent/wasmagent/host"
	"github.com/wasmagent/wasmagent/host/session"
	"github.com/wasmagent/wasmagent/internal/wasmbuild"
)

// crashScript: two parallel slow tool calls, a slow streamed answer, one
// more slow call, and the end, so a kill lands between events, mid-tool
// and mid-stream.
const crashScript = `{"chunkTokens":1,"turns":[
 {"content":[{"type":"text","text":"Working on it."},
   {"type":"toolCall","id":"s1","name":"sleep","arguments":{"ms":120}},
   {"type":"toolCall","id":"s2","name":"sleep","arguments":{"ms":60}}]},
 {"content":[{"type":"text","text":"Both slept; one more."},
   {"type":"toolCall","id":"s3","name":"sleep","arguments":{"ms":90}}],"chunkDelayMs":15},
 {"content":"Done."}]}`

// A child process running a scripted session with slow tools is killed
// with SIGKILL at many points; each time the session reloads (the next
// child continues it), and at the end the transcript holds every message
// a child reported ended, exactly once, and no unanswered tool call.
func TestKillNineLosesNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and a plugin, runs many processes")
	}
	t.Parallel() // it waits on child processes (see TestMain)
	dir := t.TempDir()
	state := filepath.Join(dir, "state")
	os.WriteFile(filepath.Join(dir, "script.json"), []byte(crashScript), 0o644)
	cfg := fmt.Sprintf("[model]\nprovider = \"scripted\"\nscript = \"script.json\"\n[runtime]\ncache_dir = %q\n[sessions]\ndir = %q\n[[tool]]\nplugin = %q\n",
		wasmbuild.TestCacheDir(), state, wasmbuild.ForTest(t, "internal/testplugins/probe"))
	os.WriteFile(filepath.Join(dir, "agent.toml"), []byte(cfg), 0o644)

	var ended []string // message_end messages the children printed
	rng := rand.New(rand.NewPCG(1, 2))
	kills := 0
	for round := 0; round < 16; round++ {
		args := []string{"run", "--json", "--config", filepath.Join(dir, "agent.toml")}
		if round > 0 {
			args = append(args, "--continue")
		}
		args = append(args, fmt.Sprintf("prompt %d", round))
		// Kill after the n-th event line, or after a random time.
		afterLines, afterTime := -1, time.Duration(0)
		if round%2 == 0 {
			afterLines = rng.IntN(40)
		} else {
			afterTime = time.Duration(rng.IntN(600)) * time.Millisecond
		}
		if round == 15 {
			afterLines, afterTime = -1, 0 // the last one runs to its end
		}
		lines, killed, stderr := runAndKill(t, dir, args, afterLines, afterTime)
		if killed {
			kills++
		}
		if strings.Contains(stderr, "in use by another") {
			t.Fatalf("round %d: the dead child's lock was not recovered:\n%s", round, stderr)
		}
		for _, l := range lines {
			var e struct {
				Type    string          `json:"type"`
				Message json.RawMessage `json:"message"`
			}
			if json.Unmarshal([]byte(l), &e) == nil && e.Type == "message_end" {
				ended = append(ended, canonical(t, e.Message))
			}
		}
	}
	if kills < 8 {
		t.Fatalf("only %d of the children were killed before their end", kills)
	}
	files, _ := filepath.Glob(filepath.Join(state, "*", "*.jsonl"))
	if len(files) != 1 {
		t.Fatalf("want one session file, got %v", files)
	}
	data, _ := os.ReadFile(files[0])
	tr, err := session.Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	msgs := tr.View(tr.Leaf()).Messages
	count := map[string]int{}
	for _, m := range msgs {
		b, _ := json.Marshal(m)
		count[canonical(t, b)]++
	}
	for _, m := range ended {
		if count[m] != 1 {
			t.Fatalf("ended message found %d times in the transcript:\n%s", count[m], m)
		}
	}
	if calls, _ := session.Interrupted(msgs, 0); len(calls) > 0 {
		t.Fatalf("unanswered calls remain: %v", calls)
	}
	var last *host.AssistantMessage
	for _, m := range msgs {
		if a, ok := m.(*host.AssistantMessage); ok {
			last = a
		}
	}
	if last == nil || last.Content.TextOf() != "Done." {
		t.Fatalf("the last run did not finish: %+v", last)
	}
	t.Logf("%d children killed; %d messages ended, %d in the transcript", kills, len(ended), len(msgs))
}

func canonical(t *testing.T, raw json.RawMessage) string {
	m, err := host.DecodeMessage(raw)
	if err != nil {
		t.Fatalf("%v: %s", err, raw)
	}
	b, _ := json.Marshal(m)
	return string(b)
}

// runAndKill runs the binary in dir, SIGKILLs it after afterLines lines
// of stdout or afterTime (when set), and returns the lines it printed.
func runAndKill(t *testing.T, dir string, args []string, afterLines int, afterTime time.Duration) (lines []string, killed bool, stderr string) {
	t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Dir = dir
	var errBuf strings.Builder
	cmd.Stderr = &errBuf
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var timer *time.Timer
	if afterTime > 0 {
		timer = time.AfterFunc(afterTime, func() { cmd.Process.Signal(syscall.SIGKILL) })
		defer timer.Stop()
	}
	sc := bufio.NewScanner(out)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		lines = append(lines, sc.Text())
		if afterLines >= 0 && len(lines) == afterLines+1 {
			cmd.Process.Signal(syscall.SIGKILL)
		}
	}
	cmd.Wait()
	ws, _ := cmd.ProcessState.Sys().(syscall.WaitStatus)
	return lines, ws.Signaled(), errBuf.String()
}
