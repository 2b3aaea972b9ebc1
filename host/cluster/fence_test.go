package cluster

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/wasmagent/wasmagent/host"
	"github.com/wasmagent/wasmagent/host/session"
)

// hosts returns two stores over one prefix, as two hosts would have.
func hosts(t *testing.T, ttl time.Duration) (a, b *Store) {
	c := testConn(t, testServer(t))
	a = testStore(t, c, StoreConfig{Prefix: "fence", Holder: "host-a", LeaseTTL: ttl})
	b = testStore(t, c, StoreConfig{Prefix: "fence", Holder: "host-b", LeaseTTL: ttl})
	return a, b
}

// openWhenFree opens key, waiting (bounded) while another holds it.
func openWhenFree(t *testing.T, st *Store, key string) (session.Log, *session.Transcript) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		l, tr, err := st.Open(context.Background(), key)
		var le *session.LockedError
		if err == nil {
			return l, tr
		}
		if !errors.As(err, &le) || time.Now().After(deadline) {
			t.Fatalf("open %s: %v", key, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func texts(tr *session.Transcript) []string {
	var out []string
	for _, e := range tr.Entries {
		out = append(out, e.Message.(*host.UserMessage).Content.TextOf())
	}
	return out
}

// A holder that paused past its lease (its renewals stopped; it does not
// know) cannot append once another host has taken the session over, even
// before the new holder appended anything.
func TestFencePausedHolder(t *testing.T) {
	a, b := hosts(t, time.Second)
	ctx := context.Background()
	la, err := a.Create(ctx, header("s"), []session.Entry{userEntry("1", "", "a1")})
	if err != nil {
		t.Fatal(err)
	}
	if err := la.Append(ctx, userEntry("2", "1", "a2")); err != nil {
		t.Fatal(err)
	}
	la.(*Log).lease.stopRenewing() // host a pauses: no renewals, no appends

	lb, tr := openWhenFree(t, b, "s")
	defer lb.Close()
	if got := texts(tr); len(got) != 2 {
		t.Fatalf("host b loaded %q", got)
	}
	// Host a wakes up and appends: refused, naming host b.
	err = la.Append(ctx, userEntry("3", "2", "a3"))
	var fe *FencedError
	if !errors.As(err, &fe) || fe.Holder != "host-b" || fe.Session != "s" {
		t.Fatalf("append by the paused holder: %v", err)
	}
	// And it stays stopped.
	if err := la.Append(ctx, userEntry("3", "2", "a3")); !errors.As(err, &fe) {
		t.Fatalf("second append by the paused holder: %v", err)
	}
	if err := lb.Append(ctx, userEntry("3", "2", "b3")); err != nil {
		t.Fatal(err)
	}
	la.Close() // must not release host b's lease
	if _, _, err := a.Open(ctx, "s"); err == nil {
		t.Fatal("host a opened the session host b holds")
	}
	tr, err = a.Load(ctx, "s")
	if err != nil {
		t.Fatal(err)
	}
	if got := texts(tr); len(got) != 3 || got[2] != "b3" {
		t.Fatalf("final transcript %q", got)
	}
}

// A writer that appends between the new holder's read and its fence does
// not make the new holder lose: Open reads again and fences after it.
func TestFenceOpenRaces(t *testing.T) {
	a, b := hosts(t, time.Second)
	ctx := context.Background()
	la, err := a.Create(ctx, header("s"), []session.Entry{userEntry("1", "", "a1")})
	if err != nil {
		t.Fatal(err)
	}
	defer la.Close()
	lb := &Log{st: b, id: "s", key: "s", lease: &lease{st: b, stop: make(chan struct{}), done: make(chan struct{})}}
	close(lb.lease.done)
	_, seq, _, err := b.load(ctx, "s")
	if err != nil {
		t.Fatal(err)
	}
	lb.seq = seq
	if err := la.Append(ctx, userEntry("2", "1", "a2")); err != nil {
		t.Fatal(err)
	}
	if _, ok, err := lb.publishFence(ctx); ok || err != nil {
		t.Fatalf("a fence after a stale read: ok %v, %v", ok, err)
	}
	if lb.broken != nil {
		t.Fatalf("a lost fence race broke the log: %v", lb.broken)
	}
}

// The holder renews its lease: others are refused for longer than the
// TTL; Close frees it at once; a lease left unrenewed expires.
func TestLeaseRenewAndExpire(t *testing.T) {
	// Its own server: it runs beside the others, which mostly wait
	// (RATIONALE.md, "Why is make test shaped this way?").
	t.Parallel()
	a, b := hosts(t, time.Second)
	ctx := context.Background()
	la, err := a.Create(ctx, header("s"), []session.Entry{userEntry("1", "", "a1")})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 4; i++ { // 2s: twice the TTL
		var le *session.LockedError
		if _, _, err := b.Open(ctx, "s"); !errors.As(err, &le) {
			t.Fatalf("open while renewed: %v", err)
		}
		time.Sleep(500 * time.Millisecond)
	}
	if h, held, err := b.Holder(ctx, "s"); h != "host-a" || !held || err != nil {
		t.Fatalf("holder while held: %q %v %v", h, held, err)
	}
	la.Close()
	if h, held, err := b.Holder(ctx, "s"); held || err != nil {
		t.Fatalf("holder after close: %q %v %v", h, held, err)
	}
	lb, _, err := b.Open(ctx, "s")
	if err != nil {
		t.Fatalf("open after close: %v", err)
	}
	lb.(*Log).lease.stopRenewing()
	start := time.Now()
	la, _ = openWhenFree(t, a, "s")
	la.Close()
	if waited := time.Since(start); waited < 500*time.Millisecond {
		t.Fatalf("an unrenewed lease was taken after %s, before its TTL", waited)
	}
}

// A holder whose renewal finds the lease gone or replaced stops
// appending without trying.
func TestLeaseLostStopsAppends(t *testing.T) {
	a, _ := hosts(t, time.Second)
	ctx := context.Background()
	la, err := a.Create(ctx, header("s"), []session.Entry{userEntry("1", "", "a1")})
	if err != nil {
		t.Fatal(err)
	}
	defer la.Close()
	if err := a.leases.Purge(ctx, "s"); err != nil { // an operator removes it
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for la.(*Log).lease.held() && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	var fe *FencedError
	if err := la.Append(ctx, userEntry("2", "1", "a2")); !errors.As(err, &fe) {
		t.Fatalf("append after the lease was lost: %v", err)
	}
	tr, err := a.Load(ctx, "s")
	if err != nil || len(tr.Entries) != 1 {
		t.Fatalf("load: %v", err)
	}
}

// A holder that dies between the messages of one append leaves nothing
// of it: the next holder loads the session without it (with a warning)
// and continues after it.
func TestTornAppendLeavesNothing(t *testing.T) {
	a, b := hosts(t, time.Second)
	ctx := context.Background()
	la, err := a.Create(ctx, header("s"), []session.Entry{userEntry("1", "", "a1")})
	if err != nil {
		t.Fatal(err)
	}
	data, err := session.EncodeLines(nil, []session.Entry{userEntry("2", "1", "half written")})
	if err != nil {
		t.Fatal(err)
	}
	l := la.(*Log)
	m := nats.NewMsg(a.subj + "s")
	m.Data = data[:len(data)/2]
	m.Header.Set(hdrKind, kindLog)
	m.Header.Set(hdrPart, "1/2")
	l.mu.Lock()
	err = l.publish(ctx, m)
	l.mu.Unlock()
	if err != nil {
		t.Fatal(err)
	}
	l.lease.stopRenewing() // and host a dies

	lb, tr := openWhenFree(t, b, "s")
	defer lb.Close()
	if got := texts(tr); len(got) != 1 || len(tr.Warnings) == 0 {
		t.Fatalf("loaded %q, warnings %q", got, tr.Warnings)
	}
	if err := lb.Append(ctx, userEntry("2", "1", "b2")); err != nil {
		t.Fatal(err)
	}
	tr, err = b.Load(ctx, "s")
	if err != nil {
		t.Fatal(err)
	}
	if got := texts(tr); len(got) != 2 || got[1] != "b2" {
		t.Fatalf("after the takeover: %q", got)
	}
}
