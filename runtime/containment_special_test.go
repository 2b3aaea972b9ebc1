//go:build unix

package runtime_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/wasmagent/wasmagent/runtime"
)

// A named pipe in a grant is refused at open ("permission denied"), for
// reading and for writing, directly or through a link: a pipe no one
// writes to blocks its reader in the kernel, where no deadline or abort
// reaches. On the old main the read below never ended (its 300 ms
// timeout passed, the call kept its slot), and Agent.Abort could not end
// it either. Regular files read and write as before.
func TestSpecialFilesAreRefused(t *testing.T) {
	dir := t.TempDir()
	pipe := filepath.Join(dir, "pipe")
	if err := syscall.Mkfifo(pipe, 0o644); err != nil {
		t.Skipf("no named pipes here: %v", err)
	}
	if err := os.Symlink("pipe", filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "plain"), []byte("text"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, write := range []bool{false, true} {
		p := probe(t, runtime.Grants{Dirs: []runtime.Dir{{Host: dir, Guest: "/w", Write: write}}, Timeout: 300 * time.Millisecond}, 0)
		calls := []struct{ tool, path string }{{"read", "/w/pipe"}}
		if write {
			calls = append(calls, struct{ tool, path string }{"read", "/w/link"}, struct{ tool, path string }{"write", "/w/pipe"})
		}
		for _, c := range calls {
			args := map[string]any{"path": c.path}
			if c.tool == "write" {
				args["text"] = "x"
			}
			done := make(chan error, 1)
			go func() {
				_, err := execute(context.Background(), p, c.tool, args, nil)
				done <- err
			}()
			select {
			case err := <-done:
				if err == nil || !strings.Contains(err.Error(), "ermission denied") {
					t.Errorf("%s %s (write grant %v): %v, want permission denied", c.tool, c.path, write, err)
				}
			case <-time.After(5 * time.Second):
				// Unblock the plugin's open, then fail.
				if f, err := os.OpenFile(pipe, os.O_RDWR, 0); err == nil {
					defer f.Close()
				}
				t.Fatalf("%s %s (write grant %v): still running 5 s after a 300 ms timeout", c.tool, c.path, write)
			}
		}
		if r, err := execute(context.Background(), p, "read", map[string]any{"path": "/w/plain"}, nil); err != nil || text(r) != "text" {
			t.Errorf("a regular file (write grant %v): %q, %v", write, text(r), err)
		}
	}
}
