package cluster

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/wasmagent/wasmagent/host/session"
)

// An event stream whose client stops reading holds a bounded number of
// bytes ahead of it, whatever the number of events stored (the default
// prefetch, 500 messages, held every one of these 20 events of 512 KiB:
// 10 MiB for one idle reader), and still delivers every event in order,
// the largest the server takes included. Then the host's streams share
// one budget (checkReadAheadBudget).
func TestEventReaderPrefetchBounded(t *testing.T) {
	url := startNATSWith(t, 1<<20)
	h := startHost(t, url, &session.FileStore{Dir: t.TempDir()}, 0)
	ctx := context.Background()
	const id = "0193a000-0000-7000-8000-0000000000e1"
	ev, err := openEvents(ctx, h.js, id)
	if err != nil {
		t.Fatal(err)
	}
	const n = 20
	big := bytes.Repeat([]byte("x"), 512<<10)
	for i := 0; i < n; i++ {
		data := append([]byte(`{"type":"e","i":`), byte('0'+i%10))
		data = append(append(append(data, `,"pad":"`...), big...), `"}`...)
		if i == n-1 { // the largest event the server takes
			data = bytes.Repeat([]byte("y"), int(h.js.Conn().MaxPayload())-eventHeadroom)
		}
		if _, err := ev.publish(ctx, data); err != nil {
			t.Fatal(err)
		}
	}
	it, err := eventIterator(ctx, h.js, id, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer it.Stop()
	r := &eventReader{it: it}
	if _, err := r.Next(ctx); err != nil {
		t.Fatal(err)
	}
	// The consumer fills its buffer; then the server has delivered only
	// what the bound lets it.
	s, err := h.js.Stream(ctx, eventStream)
	if err != nil {
		t.Fatal(err)
	}
	limit := 1 + (eventPrefetch(h.js)+len(big)-1)/len(big) + 1
	var delivered uint64
	for deadline := time.Now().Add(2 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		names := s.ListConsumers(ctx)
		for ci := range names.Info() {
			delivered = max(delivered, ci.Delivered.Consumer)
		}
	}
	if delivered == 0 || delivered > uint64(limit) {
		t.Fatalf("the server delivered %d of %d events of 512 KiB to a reader that took one: want 1 to %d (%d bytes ahead)", delivered, n, limit, eventPrefetch(h.js))
	}
	for i := 1; i < n; i++ {
		e, err := r.Next(ctx)
		if err != nil {
			t.Fatalf("event %d: %v", i, err)
		}
		if i == n-1 && e.Data[0] != 'y' {
			t.Fatalf("the last event is %.20q, not the largest one", e.Data)
		}
	}
	it.Stop()
	checkReadAheadBudget(t, h, id, n, big)
}

// checkReadAheadBudget: the host's event streams together hold at most
// its read-ahead budget ahead of their clients: streams opened past it
// pull each event when asked. Each of 5 streams, opened at generated
// points of session id's n events, takes one event and stalls; the server
// then has delivered what 2 streams reading ahead and 3 pulling allow (on
// the old main every stream read 4 MiB ahead: 35 events of 512 KiB, for
// a bound of 23). Then a stream of each kind delivers every later event
// in order, the largest the server takes last, and closing them gives
// the budget back.
func checkReadAheadBudget(t *testing.T, h *member, id string, n int, big []byte) {
	ctx := context.Background()
	prefetch := eventPrefetch(h.js)
	budget := 2 * prefetch
	h.ahead = &readAhead{free: budget}
	s, err := h.js.Stream(ctx, eventStream)
	if err != nil {
		t.Fatal(err)
	}
	deliveredNow := func() (n uint64) {
		names := s.ListConsumers(ctx)
		for ci := range names.Info() {
			n += ci.Delivered.Consumer
		}
		return n
	}
	base := deliveredNow() // the readers before these, if still listed
	rng := rand.New(rand.NewPCG(3, 7))
	var readers []*eventReader
	var firsts []uint64
	for range 5 {
		after := uint64(rng.IntN(n / 2))
		r, err := openReader(ctx, h.js, id, after, h.ahead)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		e, err := r.Next(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if e.ID != fmt.Sprint(after+1) {
			t.Fatalf("a stream after %d began with event %s", after, e.ID)
		}
		readers = append(readers, r)
		firsts = append(firsts, after+1)
	}
	perAhead := 1 + (prefetch+len(big)-1)/len(big) + 1
	limit := uint64(2*perAhead + 3)
	var delivered uint64
	for deadline := time.Now().Add(time.Second); time.Now().Before(deadline) && delivered <= limit; time.Sleep(100 * time.Millisecond) {
		d := deliveredNow()
		delivered = d - min(base, d)
	}
	if delivered > limit {
		t.Fatalf("5 stalled streams were delivered %d events of %d KiB, want at most %d (a budget of %d bytes ahead)", delivered, len(big)>>10, limit, budget)
	}
	for k, r := range readers {
		if k != 0 && k != len(readers)-1 {
			r.Close() // one stream of each kind is read to the end
			continue
		}
		for seq := firsts[k] + 1; seq <= uint64(n); seq++ {
			e, err := r.Next(ctx)
			if err != nil {
				t.Fatalf("stream %d, event %d: %v", k, seq, err)
			}
			if e.ID != fmt.Sprint(seq) {
				t.Fatalf("stream %d: event %s where %d was due", k, e.ID, seq)
			}
			if seq == uint64(n) && e.Data[0] != 'y' {
				t.Fatalf("stream %d: the last event is %.20q, not the largest one", k, e.Data)
			}
		}
		r.Close()
	}
	if h.ahead.free != budget {
		t.Fatalf("closed streams left %d of %d bytes of read-ahead", h.ahead.free, budget)
	}
}
