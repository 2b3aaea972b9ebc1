package session_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmagent/wasmagent/host/session"
)

const v1File = `{"type":"session","id":"old1","timestamp":"2024-01-01T00:00:00.000Z","cwd":"/"}
{"type":"message","timestamp":"2024-01-01T00:00:01.000Z","message":{"role":"user","content":"hello","timestamp":1}}
{"type":"message","timestamp":"2024-01-01T00:00:02.000Z","message":{"role":"user","content":"again","timestamp":2}}
`

// An older-version file is upgraded by writing a new file and renaming it
// over the old one: the old inode (here kept by a hard link) is never
// truncated or written, and no temporary file is left.
func TestUpgradeReplacesFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "old.jsonl")
	os.WriteFile(path, []byte(v1File), 0o640)
	link := filepath.Join(dir, "link")
	if err := os.Link(path, link); err != nil {
		t.Skip(err)
	}
	store := &session.FileStore{Dir: dir, NoSync: true}
	l, tr, err := store.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if old, _ := os.ReadFile(link); string(old) != v1File {
		t.Fatalf("the old file was written in place:\n%s", old)
	}
	data, _ := os.ReadFile(path)
	// version 1 had no version: pi adds it after the header's members
	if !strings.HasPrefix(string(data), `{"type":"session","id":"old1","timestamp":"2024-01-01T00:00:00.000Z","cwd":"/","version":3}`) || strings.Count(string(data), "\n") != 3 {
		t.Fatalf("upgraded:\n%s", data)
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o640 {
		t.Errorf("mode %v", st.Mode())
	}
	if len(tr.Entries) != 2 {
		t.Fatalf("%d entries", len(tr.Entries))
	}
	names, _ := os.ReadDir(dir)
	for _, n := range names {
		if strings.Contains(n.Name(), "upgrade") {
			t.Errorf("temporary file left: %s", n.Name())
		}
	}
}

// An older-version file with lines this wasmagent cannot decode is not
// rewritten (that would drop them) nor appended to: Open refuses it with
// a clear error and leaves it byte for byte; Load and Fork still read it.
func TestUpgradeRefusedWhenLinesWouldBeLost(t *testing.T) {
	for name, extra := range map[string]string{
		"not json":      "{not json\n",
		"unknown shape": `{"type":"message","message":"just a string"}` + "\n",
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "old.jsonl")
			content := v1File + extra
			os.WriteFile(path, []byte(content), 0o600)
			store := &session.FileStore{Dir: dir, NoSync: true}
			ctx := context.Background()
			if tr, err := store.Load(ctx, path); err != nil || len(tr.Warnings) == 0 {
				t.Skipf("the line decodes here: %v", err)
			}
			_, err := session.Open(ctx, session.Options{Store: store}, path)
			if !errors.Is(err, session.ErrOldFormat) || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "--fork") {
				t.Fatalf("Open: %v", err)
			}
			if got, _ := os.ReadFile(path); string(got) != content {
				t.Fatalf("the file changed:\n%s", got)
			}
			f, err := session.Fork(ctx, session.Options{Store: store}, path)
			if err != nil {
				t.Fatal(err)
			}
			if n := len(f.Agent().State().Messages); n != 2 {
				t.Errorf("fork has %d messages", n)
			}
			f.Close()
		})
	}
}
