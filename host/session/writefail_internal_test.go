package session

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/wasmagent/wasmagent/host"
)

// A write that fails after writing part of its data (a full disk, a quota)
// is cut off: the next append starts a line of its own, and the session's
// branch goes on from the last entry actually written, so a resume sees
// every message kept before and after the failure.
func TestFailedAppendKeepsHistory(t *testing.T) {
	for _, mode := range []string{"short", "error after part", "error"} {
		t.Run(mode, func(t *testing.T) {
			ctx := context.Background()
			dir := t.TempDir()
			store := &FileStore{Dir: dir, NoSync: true}
			s := New(Options{Store: store, Cwd: "/"})
			defer s.Close()
			user := func(text string) host.Message { return &host.UserMessage{Content: host.Text(text)} }
			if err := s.appendMessages(ctx, user("one")); err != nil {
				t.Fatal(err)
			}
			fl := s.log.(*fileLog)
			fl.writeHook = func(b []byte) (int, error) {
				switch mode {
				case "short":
					return fl.f.Write(b[:len(b)/2])
				case "error after part":
					n, _ := fl.f.Write(b[:len(b)/2])
					return n, errors.New("disk full")
				}
				return 0, errors.New("disk full")
			}
			if err := s.appendMessages(ctx, user("lost"), user("lost too")); err == nil {
				t.Fatal("the failed append reported no error")
			}
			fl.writeHook = nil
			if err := s.appendMessages(ctx, user("two")); err != nil {
				t.Fatal(err)
			}
			if err := s.SetName(ctx, "named"); err != nil {
				t.Fatal(err)
			}
			if err := s.appendMessages(ctx, user("three")); err != nil {
				t.Fatal(err)
			}
			path := s.path
			s.Close()
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			tr, err := Decode(data)
			if err != nil || len(tr.Warnings) > 0 {
				t.Fatalf("%v %v\n%s", err, tr.Warnings, data)
			}
			var texts []string
			for _, m := range tr.View(tr.Leaf()).Messages {
				texts = append(texts, m.(*host.UserMessage).Content.TextOf())
			}
			if got := filepath.Join(texts...); got != "one/two/three" {
				t.Fatalf("resumed branch %q", got)
			}
			if tr.Name() != "named" {
				t.Fatalf("name %q", tr.Name())
			}
		})
	}
}
