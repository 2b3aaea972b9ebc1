package session_test

import (
	"context"
	"errors"
	"testing"

	"github.com/wasmagent/wasmagent/host/session"
)

// failingStore is a FileStore whose logs refuse appends while fail is set,
// writing nothing.
type failingStore struct {
	session.FileStore
	fail *bool
}

type failingLog struct {
	session.Log
	fail *bool
}

func (s *failingStore) Create(ctx context.Context, h session.Header, e []session.Entry) (session.Log, error) {
	l, err := s.FileStore.Create(ctx, h, e)
	return &failingLog{l, s.fail}, err
}

func (l *failingLog) Append(ctx context.Context, e ...session.Entry) error {
	if *l.fail {
		return errors.New("disk full")
	}
	return l.Log.Append(ctx, e...)
}

// An append that fails, whatever the store, does not move the branch: the
// entries after it hang from the last entry written, so the stored
// branch holds every message kept.
func TestFailedAppendRollsBack(t *testing.T) {
	ctx := context.Background()
	fail := false
	store := &failingStore{session.FileStore{Dir: t.TempDir(), NoSync: true}, &fail}
	s := session.New(session.Options{Store: store, Cwd: "/"})
	defer s.Close()
	if err := s.SetName(ctx, "first"); err != nil {
		t.Fatal(err)
	}
	fail = true
	if err := s.SetName(ctx, "lost"); err == nil {
		t.Fatal("no error")
	}
	if err := s.SetThinkingLevel(ctx, "high"); err == nil {
		t.Fatal("no error")
	}
	fail = false
	if err := s.SetName(ctx, "second"); err != nil {
		t.Fatal(err)
	}
	s.Close()
	all, err := store.List(ctx)
	if err != nil || len(all) != 1 {
		t.Fatalf("%v %v", all, err)
	}
	tr, err := store.Load(ctx, all[0].Key)
	if err != nil {
		t.Fatal(err)
	}
	if b := tr.Branch(tr.Leaf()); len(b) != 2 || b[0].Name != "first" || b[1].Name != "second" {
		t.Fatalf("branch %+v", b)
	}
}
