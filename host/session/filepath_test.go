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

// Files that are not sessions, each named by path: none may be found,
// opened or removed, and each stays byte for byte as it was.
func TestPathMustBeSessionFile(t *testing.T) {
	dir := t.TempDir()
	store := &session.FileStore{Dir: filepath.Join(dir, "sessions"), NoSync: true}
	ctx := context.Background()
	cases := map[string]string{
		"notes.txt":        "my notes\n",
		"empty.jsonl":      "",
		"data.jsonl":       `{"type":"message","id":"a"}` + "\n",
		"noid.jsonl":       `{"type":"session","version":3}` + "\n",
		"torn.jsonl":       `{"type":"session","version":3,"id":"x"}`,
		"notjson.jsonl":    "\n\n{not json\n",
		"newer.jsonl":      `{"type":"session","version":99,"id":"x"}` + "\n",
		"blank.jsonl":      "\n \n",
		"array.jsonl":      "[1,2]\n",
		"longline.jsonl":   strings.Repeat("x", 3<<20) + "\n",
		"typeonly.jsonl":   `{"type":"session"}` + "\n",
		"wrongtype.jsonl":  `{"type":"sessions","id":"x","version":3}` + "\n",
		"headersecond.txt": "hello\n" + `{"type":"session","version":3,"id":"x"}` + "\n",
	}
	for name, content := range cases {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(dir, name)
			if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
				t.Fatal(err)
			}
			if _, err := session.Find(ctx, store, path); err == nil || !strings.Contains(err.Error(), path) {
				t.Errorf("Find: %v", err)
			} else if !strings.Contains(err.Error(), "not a session file") && !strings.Contains(err.Error(), "newer") {
				t.Errorf("Find: unclear error %v", err)
			}
			if err := store.Remove(ctx, path); err == nil {
				t.Errorf("Remove succeeded")
			}
			if _, _, err := store.Open(ctx, path); err == nil {
				t.Errorf("Open succeeded")
			}
			got, err := os.ReadFile(path)
			if err != nil || string(got) != content {
				t.Fatalf("the file changed: %v", err)
			}
			if _, err := os.Lstat(path + ".lock"); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("a lock file was left: %v", err)
			}
		})
	}
	if _, err := session.Find(ctx, store, dir); err == nil {
		t.Error("a directory was found as a session")
	}
	// A session file named by path is found.
	path := filepath.Join(dir, "s.jsonl")
	os.WriteFile(path, []byte(`{"type":"session","version":3,"id":"abc","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/"}`+"\n"), 0o600)
	info, err := session.Find(ctx, store, path)
	if err != nil || info.ID != "abc" {
		t.Fatalf("%+v %v", info, err)
	}
	if err := store.Remove(ctx, info.Key); err != nil {
		t.Fatal(err)
	}
}

func sessionFile(t *testing.T, dir string) string {
	path := filepath.Join(dir, "s.jsonl")
	if err := os.WriteFile(path, []byte(`{"type":"session","version":3,"id":"abc","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/"}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// A file at PATH.lock that wasmagent did not write is never truncated,
// written or removed: opening the session is refused with a clear error.
func TestForeignLockFileLeftAlone(t *testing.T) {
	ctx := context.Background()
	for name, make := range map[string]func(t *testing.T, lock string){
		"text": func(t *testing.T, lock string) { os.WriteFile(lock, []byte("precious\n"), 0o600) },
		"pid and more": func(t *testing.T, lock string) {
			os.WriteFile(lock, []byte("123\nmore\n"), 0o600)
		},
		"directory": func(t *testing.T, lock string) { os.Mkdir(lock, 0o700) },
		"symlink": func(t *testing.T, lock string) {
			target := filepath.Join(filepath.Dir(lock), "target")
			os.WriteFile(target, []byte("42\n"), 0o600)
			if err := os.Symlink(target, lock); err != nil {
				t.Skip(err)
			}
		},
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			path := sessionFile(t, dir)
			lock := path + ".lock"
			make(t, lock)
			before := snapshot(t, dir)
			store := &session.FileStore{Dir: dir, NoSync: true}
			l, _, err := store.Open(ctx, path)
			if err == nil {
				l.Close()
				t.Fatal("Open took a lock file it did not write")
			}
			if !strings.Contains(err.Error(), "not a wasmagent lock file") || !strings.Contains(err.Error(), lock) {
				t.Errorf("unclear error: %v", err)
			}
			if err := store.Remove(ctx, path); err == nil {
				t.Fatal("Remove went ahead")
			}
			if after := snapshot(t, dir); after != before {
				t.Fatalf("files changed:\n%s\n---\n%s", before, after)
			}
		})
	}
	// A stale lock file wasmagent wrote (its holder died) is taken over,
	// and removed at the end.
	dir := t.TempDir()
	path := sessionFile(t, dir)
	os.WriteFile(path+".lock", []byte("999999\n"), 0o600)
	store := &session.FileStore{Dir: dir, NoSync: true}
	l, _, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	l.Close()
	if _, err := os.Lstat(path + ".lock"); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("stale lock left: %v", err)
	}
}

func snapshot(t *testing.T, dir string) string {
	var b strings.Builder
	filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		data := ""
		if fi.Mode().IsRegular() {
			d, _ := os.ReadFile(p)
			data = string(d)
		}
		if fi.Mode()&os.ModeSymlink != 0 {
			data, _ = os.Readlink(p)
		}
		b.WriteString(p + " " + fi.Mode().String() + " " + data + "\n")
		return nil
	})
	return b.String()
}

// switch_session by path refuses a file that is not a session, and the
// session stays where it was.
func TestSwitchToNonSessionPath(t *testing.T) {
	dir := t.TempDir()
	victim := filepath.Join(dir, "notes.txt")
	os.WriteFile(victim, []byte("keep\n"), 0o600)
	s := session.New(session.Options{Store: &session.FileStore{Dir: filepath.Join(dir, "s"), NoSync: true}, Cwd: "/"})
	defer s.Close()
	ctx := context.Background()
	if err := s.SetName(ctx, "here"); err != nil {
		t.Fatal(err)
	}
	before := s.State().SessionFile
	if err := s.Switch(ctx, victim); err == nil || !strings.Contains(err.Error(), "not a session file") {
		t.Fatalf("Switch: %v", err)
	}
	if got := s.State().SessionFile; got != before {
		t.Fatalf("moved to %s", got)
	}
	if data, _ := os.ReadFile(victim); string(data) != "keep\n" {
		t.Fatal("the file changed")
	}
}
