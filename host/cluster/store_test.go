package cluster

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/wasmagent/wasmagent/host"
	"github.com/wasmagent/wasmagent/host/session"
	"github.com/wasmagent/wasmagent/host/session/sessiontest"
)

// testServer starts an embedded server for t, stopped at its end.
func testServer(t testing.TB) *Server {
	t.Helper()
	s, err := StartServer(ServerConfig{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Shutdown)
	return s
}

func testConn(t testing.TB, s *Server) *Conn {
	t.Helper()
	c, err := s.Connect(t.Name())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

var prefixes atomic.Int64

// testStore makes a store of its own (a fresh prefix) on c.
func testStore(t testing.TB, c *Conn, cfg StoreConfig) *Store {
	t.Helper()
	if cfg.Prefix == "" {
		cfg.Prefix = fmt.Sprintf("t%d", prefixes.Add(1))
	}
	st, err := NewStore(context.Background(), c, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func TestStoreContract(t *testing.T) {
	c := testConn(t, testServer(t))
	sessiontest.Store(t, func(t *testing.T) session.Store { return testStore(t, c, StoreConfig{}) })
}

func header(id string) session.Header {
	return session.Header{Type: session.TypeSession, Version: session.Version, ID: id, Timestamp: "2026-01-02T03:04:05.000Z", Cwd: "/w"}
}

func userEntry(id, parent, text string) session.Entry {
	return session.Entry{Type: session.TypeMessage, ID: id, ParentID: parent, Timestamp: "2026-01-02T03:04:06.000Z",
		Message: &host.UserMessage{Content: host.Text(text), Timestamp: 1}}
}

func TestStoreCreateExisting(t *testing.T) {
	c := testConn(t, testServer(t))
	st := testStore(t, c, StoreConfig{})
	ctx := context.Background()
	l, err := st.Create(ctx, header("dup"), []session.Entry{userEntry("a", "", "one")})
	if err != nil {
		t.Fatal(err)
	}
	l.Close()
	if _, err := st.Create(ctx, header("dup"), nil); err == nil {
		t.Fatal("a second Create of one id succeeded")
	}
	// The refused Create left no lease behind.
	l, _, err = st.Open(ctx, "dup")
	if err != nil {
		t.Fatalf("open after a refused create: %v", err)
	}
	l.Close()
	if _, err := st.Create(ctx, header("a.b"), nil); err == nil {
		t.Fatal("an id that cannot name a subject was accepted")
	}
}

func TestStoreLockedNamesHolder(t *testing.T) {
	c := testConn(t, testServer(t))
	a := testStore(t, c, StoreConfig{Prefix: "held", Holder: "host-a"})
	b := testStore(t, c, StoreConfig{Prefix: "held", Holder: "host-b"})
	ctx := context.Background()
	l, err := a.Create(ctx, header("s"), []session.Entry{userEntry("a", "", "one")})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	var le *session.LockedError
	if _, _, err := b.Open(ctx, "s"); !errors.As(err, &le) || le.Holder != "host-a" {
		t.Fatalf("open by host-b: %v", err)
	}
}

func TestStoreLargeAppendSplits(t *testing.T) {
	s, err := StartServer(ServerConfig{Dir: t.TempDir(), MaxPayload: 64 << 10})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Shutdown()
	c := testConn(t, s)
	st := testStore(t, c, StoreConfig{})
	ctx := context.Background()
	big := make([]byte, 300<<10)
	for i := range big {
		big[i] = 'a' + byte(i%26)
	}
	l, err := st.Create(ctx, header("big"), []session.Entry{userEntry("a", "", "one")})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if err := l.Append(ctx, userEntry("b", "a", string(big))); err != nil {
		t.Fatal(err)
	}
	tr, err := st.Load(ctx, "big")
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Entries) != 2 || tr.Entries[1].Message.(*host.UserMessage).Content.TextOf() != string(big) || len(tr.Warnings) > 0 {
		t.Fatalf("%d entries, warnings %q", len(tr.Entries), tr.Warnings)
	}
}

func TestStoreUnavailable(t *testing.T) {
	s, err := StartServer(ServerConfig{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	c := testConn(t, s)
	st := testStore(t, c, StoreConfig{Timeout: 300 * time.Millisecond})
	ctx := context.Background()
	l, err := st.Create(ctx, header("u"), []session.Entry{userEntry("a", "", "one")})
	if err != nil {
		t.Fatal(err)
	}
	s.Shutdown()
	err = l.Append(ctx, userEntry("b", "a", "two"))
	if !errors.Is(err, ErrUnavailable) {
		t.Fatalf("append with the server gone: %v", err)
	}
	if _, err := st.List(ctx); !errors.Is(err, ErrUnavailable) {
		t.Fatalf("list with the server gone: %v", err)
	}
	if _, err := st.Load(ctx, "u"); !errors.Is(err, ErrUnavailable) {
		t.Fatalf("load with the server gone: %v", err)
	}
}
