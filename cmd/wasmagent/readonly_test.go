//go:build linux

package main_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// serve keeps its sessions under [serve] dir (by default in the state
// directory): where that directory is there but this user cannot write it
// (a read-only state directory, another user's), serve says so at once,
// naming it and the keys that move it; it waited 10 s for its embedded
// JetStream to start and said only that it "did not start within 10s".
// sessions ls, a read, works there. Run as another user (uid 65534) when
// the tests run as root, whom file modes do not stop.
func TestServeUnwritableState(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	t.Parallel() // it waits on child processes (see TestMain)
	dir := t.TempDir()
	state := filepath.Join(dir, "state")
	// (As a serve run before left it: a directory that is there made
	// the embedded server wait its 10 s.)
	os.MkdirAll(filepath.Join(state, "serve", "nats", "jetstream"), 0o755)
	os.WriteFile(filepath.Join(dir, "script.json"), []byte(`{"turns":[{"content":"fine"}]}`), 0o644)
	cfg := filepath.Join(dir, "agent.toml")
	os.WriteFile(cfg, []byte("[model]\nprovider = \"scripted\"\nscript = \"script.json\"\n[runtime]\ncache_dir = \"off\"\n[sessions]\ndir = "+quote(state)+"\n"), 0o644)
	// A session, kept while the directory could be written.
	run := exec.Command(binary, "run", "--config", cfg, "hi")
	run.Dir = dir
	if out, err := run.CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	as := func(args ...string) *exec.Cmd { return exec.Command(binary, args...) }
	if os.Geteuid() == 0 {
		setpriv, err := exec.LookPath("setpriv")
		if err != nil {
			t.Skip("running as root, and no setpriv to run as another user")
		}
		// The other user runs a copy of the binary, in directories it may
		// enter.
		exe := filepath.Join(dir, "wasmagent")
		b, err := os.ReadFile(binary)
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(exe, b, 0o755)
		for d := dir; strings.HasPrefix(d, os.TempDir()+string(filepath.Separator)); d = filepath.Dir(d) {
			os.Chmod(d, 0o755)
		}
		filepath.WalkDir(state, func(p string, e os.DirEntry, err error) error {
			if err == nil {
				os.Chmod(p, map[bool]os.FileMode{true: 0o755, false: 0o644}[e.IsDir()])
			}
			return nil
		})
		as = func(args ...string) *exec.Cmd {
			cmd := exec.Command(setpriv, append([]string{"--reuid=65534", "--regid=65534", "--clear-groups", exe}, args...)...)
			cmd.Env = append(os.Environ(), "HOME=/nonexistent")
			return cmd
		}
	} else {
		filepath.WalkDir(state, func(p string, e os.DirEntry, err error) error {
			if err == nil && e.IsDir() {
				os.Chmod(p, 0o555)
			}
			return nil
		})
		t.Cleanup(func() {
			filepath.WalkDir(state, func(p string, e os.DirEntry, err error) error {
				if err == nil && e.IsDir() {
					os.Chmod(p, 0o755)
				}
				return nil
			})
		})
	}
	if err := os.WriteFile(filepath.Join(state, "probe"), nil, 0o644); err == nil && os.Geteuid() != 0 {
		os.Remove(filepath.Join(state, "probe"))
		t.Skip("the directory is writable whatever its mode here")
	}

	cmd := as("serve", "--config", cfg, "--addr", "127.0.0.1:0")
	cmd.Dir = dir
	var errOut bytes.Buffer
	cmd.Stderr = &errOut
	cmd.Run()
	got := errOut.String()
	if code := cmd.ProcessState.ExitCode(); code != 2 || !strings.Contains(got, "sessions cannot be kept") ||
		!strings.Contains(got, filepath.Join(state, "serve")) || !strings.Contains(got, "[serve] dir") || !strings.Contains(got, "permission denied") {
		t.Errorf("serve in a directory it cannot write: exit %d:\n%s", code, got)
	}

	cmd = as("sessions", "ls", "--config", cfg)
	cmd.Dir = dir
	var out bytes.Buffer
	errOut.Reset()
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil || !strings.Contains(out.String(), "hi") {
		t.Errorf("sessions ls in a directory it cannot write: %v, stdout %q\n%s", err, out.String(), errOut.String())
	}
}
