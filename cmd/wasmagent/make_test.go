//go:build linux

package main_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/wasmagent/wasmagent/internal/wasmbuild"
)

// make demo and make run build the command first: a build that takes long
// (the first, with Go's build cache empty, compiles every dependency for
// minutes) says so once, on stderr, where go run said nothing; a quick one
// says nothing. The go command is a stand-in here: one that never ends,
// and one that ends at once.
func TestMakeSaysTheCommandBuilds(t *testing.T) {
	makePath, err := exec.LookPath("make")
	if err != nil {
		t.Skip("no make here")
	}
	root, err := wasmbuild.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	slow, quick := filepath.Join(dir, "slowgo"), filepath.Join(dir, "quickgo")
	os.WriteFile(slow, []byte("#!/bin/sh\nexec sleep 600\n"), 0o755)
	os.WriteFile(quick, []byte("#!/bin/sh\nexit 0\n"), 0o755)
	var stdout rawOutput
	start := func(goCmd string, stderr *rawOutput) (*exec.Cmd, chan error) {
		cmd := exec.Command(makePath, "-s", "--no-print-directory", "-C", root, "wasmagent", "GO="+goCmd)
		for _, kv := range os.Environ() { // (not the jobserver of a make running the tests)
			if !strings.HasPrefix(kv, "MAKEFLAGS=") && !strings.HasPrefix(kv, "MFLAGS=") && !strings.HasPrefix(kv, "MAKELEVEL=") {
				cmd.Env = append(cmd.Env, kv)
			}
		}
		cmd.Stdout, cmd.Stderr = &stdout, stderr
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) })
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		return cmd, done
	}

	var out rawOutput
	_, done := start(quick, &out)
	if err := <-done; err != nil || out.String() != "" {
		t.Fatalf("a quick build: %v, output %q", err, out.String())
	}

	var slowOut rawOutput
	_, done = start(slow, &slowOut)
	deadline := time.After(60 * time.Second)
	for !strings.Contains(slowOut.String(), "compiling the wasmagent command") {
		select {
		case err := <-done:
			t.Fatalf("make ended: %v\n%s", err, slowOut.String())
		case <-deadline:
			t.Fatalf("a long build says nothing: %q", slowOut.String())
		case <-time.After(50 * time.Millisecond):
		}
	}
	if n := strings.Count(slowOut.String(), "compiling"); n != 1 || stdout.String() != "" {
		t.Fatalf("said %d times on stderr; stdout %q:\n%s", n, stdout.String(), slowOut.String())
	}
}
