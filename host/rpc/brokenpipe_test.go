//go:build unix

package rpc_test

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// `wasmagent rpc` whose client closes its end of stdout mid-run exits
// with an error saying so, having recorded the run as aborted; on the old
// main the next write killed it with SIGPIPE (Go's default for stdout),
// so the run was never recorded as ended.
func TestRPCProcessClientGone(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds the binary")
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "script.json"), []byte(`{"chunkTokens":1,"turns":[{"chunkDelayMs":20,"content":"one two three four five six seven eight nine ten"}]}`), 0o644)
	config := filepath.Join(dir, "agent.toml")
	os.WriteFile(config, []byte(fmt.Sprintf("[model]\nprovider = \"scripted\"\nscript = \"script.json\"\n[sessions]\ndir = %q\n", filepath.Join(dir, "sessions"))), 0o644)
	cmd := exec.Command(build(t), "rpc", "--config", config)
	stdin, _ := cmd.StdinPipe()
	defer stdin.Close()
	stdout, _ := cmd.StdoutPipe()
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	fmt.Fprintln(stdin, `{"id":"p","type":"prompt","message":"hi"}`)
	if _, err := bufio.NewReader(stdout).ReadString('\n'); err != nil {
		t.Fatal(err)
	}
	stdout.Close()
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	select {
	case <-exited:
	case <-time.After(60 * time.Second):
		cmd.Process.Kill()
		t.Fatal("wasmagent rpc did not exit when its client closed stdout")
	}
	ws := cmd.ProcessState.Sys().(syscall.WaitStatus)
	if ws.Signaled() || ws.ExitStatus() != 1 || !strings.Contains(stderr.String(), "broken pipe") {
		t.Fatalf("exit: %v (signaled %v), stderr %q; want status 1 naming the broken pipe", cmd.ProcessState, ws.Signaled(), stderr.String())
	}
	files, _ := filepath.Glob(filepath.Join(dir, "sessions", "*", "*.jsonl"))
	if len(files) != 1 {
		t.Fatalf("session files: %v", files)
	}
	data, _ := os.ReadFile(files[0])
	if !strings.Contains(string(data), `"stopReason":"aborted"`) {
		t.Fatalf("the session does not record the run as aborted:\n%s", data)
	}
}
