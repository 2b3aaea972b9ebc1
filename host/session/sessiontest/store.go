// Package sessiontest checks that a [session.Store] keeps the Store
// contract, so that every store (the file store, and those to come) is
// held to the same tests.
package sessiontest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/wasmagent/wasmagent/host"
	"github.com/wasmagent/wasmagent/host/session"
)

// Store runs the contract's tests against stores made by newStore; each
// call must return an empty store.
func Store(t *testing.T, newStore func(t *testing.T) session.Store) {
	t.Run("CreateAppendLoad", func(t *testing.T) { createAppendLoad(t, newStore(t)) })
	t.Run("OneWriter", func(t *testing.T) { oneWriter(t, newStore(t)) })
	t.Run("ListFindRemove", func(t *testing.T) { listFindRemove(t, newStore(t)) })
}

func header(id string) session.Header {
	return session.Header{Type: session.TypeSession, Version: session.Version, ID: id, Timestamp: "2026-01-02T03:04:05.000Z", Cwd: "/w"}
}

func message(id, parent, text string) session.Entry {
	return session.Entry{Type: session.TypeMessage, ID: id, ParentID: parent, Timestamp: "2026-01-02T03:04:06.000Z",
		Message: &host.UserMessage{Content: host.Text(text), Timestamp: 1}}
}

func key(t *testing.T, s session.Store, id string) string {
	t.Helper()
	info, err := session.Find(context.Background(), s, id)
	if err != nil {
		t.Fatal(err)
	}
	return info.Key
}

func createAppendLoad(t *testing.T, s session.Store) {
	ctx := context.Background()
	l, err := s.Create(ctx, header("s-1"), []session.Entry{message("a", "", "one")})
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Append(ctx, message("b", "a", "two"), message("c", "b", "three")); err != nil {
		t.Fatal(err)
	}
	// Appended entries are readable before the log is closed.
	tr, err := s.Load(ctx, key(t, s, "s-1"))
	if err != nil {
		t.Fatal(err)
	}
	if tr.Header.ID != "s-1" || len(tr.Entries) != 3 || tr.Leaf() != "c" {
		t.Fatalf("loaded %+v, %d entries", tr.Header, len(tr.Entries))
	}
	if got := tr.View(tr.Leaf()).Messages[2].(*host.UserMessage).Content.TextOf(); got != "three" {
		t.Fatalf("last message %q", got)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if err := l.Append(ctx, message("d", "c", "late")); err == nil {
		t.Fatal("append after close succeeded")
	}
}

func oneWriter(t *testing.T, s session.Store) {
	ctx := context.Background()
	l, err := s.Create(ctx, header("s-2"), []session.Entry{message("a", "", "one")})
	if err != nil {
		t.Fatal(err)
	}
	k := key(t, s, "s-2")
	var le *session.LockedError
	if _, _, err := s.Open(ctx, k); !errors.As(err, &le) {
		t.Fatalf("second writer: %v", err)
	}
	if err := s.Remove(ctx, k); !errors.As(err, &le) {
		t.Fatalf("remove while held: %v", err)
	}
	l.Close()
	l2, tr, err := s.Open(ctx, k)
	if err != nil {
		t.Fatalf("open after close: %v", err)
	}
	defer l2.Close()
	if len(tr.Entries) != 1 {
		t.Fatalf("%d entries", len(tr.Entries))
	}
	if err := l2.Append(ctx, message("b", "a", "two")); err != nil {
		t.Fatal(err)
	}
}

func listFindRemove(t *testing.T, s session.Store) {
	ctx := context.Background()
	for i, id := range []string{"abc-1", "abd-2", "xyz-3"} {
		h := header(id)
		h.Timestamp = time.Date(2026, 1, 2, 3, 4, i, 0, time.UTC).Format("2006-01-02T15:04:05.000Z")
		l, err := s.Create(ctx, h, []session.Entry{message("a", "", id)})
		if err != nil {
			t.Fatal(err)
		}
		l.Close()
	}
	all, err := s.List(ctx)
	if err != nil || len(all) != 3 {
		t.Fatalf("list: %d, %v", len(all), err)
	}
	if _, err := session.Find(ctx, s, "ab"); err == nil {
		t.Fatal("an ambiguous prefix was accepted")
	}
	info, err := session.Find(ctx, s, "abd")
	if err != nil || info.ID != "abd-2" || info.Messages != 1 || info.First != "abd-2" {
		t.Fatalf("find: %+v %v", info, err)
	}
	if err := s.Remove(ctx, info.Key); err != nil {
		t.Fatal(err)
	}
	if _, err := session.Find(ctx, s, "abd"); !errors.Is(err, session.ErrNotFound) {
		t.Fatalf("after remove: %v", err)
	}
}
