package host

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestEmitterOrderAndExclusion: events from many goroutines, waited for
// (emit) or not (post), each reach the sink exactly once, one at a time,
// in the order each goroutine handed them over.
func TestEmitterOrderAndExclusion(t *testing.T) {
	for round := range 20 {
		var inSink atomic.Int32
		var mu sync.Mutex
		got := map[string][]int{}
		em := &emitter{ctx: context.Background(), sink: func(_ context.Context, e Event) error {
			if inSink.Add(1) != 1 {
				t.Error("the sink was called concurrently")
			}
			u := e.(ToolExecutionUpdateEvent)
			mu.Lock()
			got[u.ToolCallID] = append(got[u.ToolCallID], u.PartialResult.(int))
			mu.Unlock()
			inSink.Add(-1)
			return nil
		}}
		const producers, each = 6, 50
		var wg sync.WaitGroup
		for p := range producers {
			wg.Go(func() {
				id := fmt.Sprint("p", p)
				var posted []*pending
				for i := range each {
					e := ToolExecutionUpdateEvent{ToolCallID: id, PartialResult: i}
					if (i+p+round)%3 == 0 {
						if err := em.emit(e); err != nil {
							t.Error(err)
						}
					} else {
						posted = append(posted, em.post(e))
					}
				}
				for _, d := range posted {
					if err := d.wait(); err != nil {
						t.Error(err)
					}
				}
			})
		}
		wg.Wait()
		for p := range producers {
			seq := got[fmt.Sprint("p", p)]
			if len(seq) != each {
				t.Fatalf("round %d: producer %d: %d events delivered, want %d", round, p, len(seq), each)
			}
			for i, v := range seq {
				if v != i {
					t.Fatalf("round %d: producer %d: event %d is %d", round, p, i, v)
				}
			}
		}
	}
}

// TestPostNeverWaitsForTheSink: post returns while the sink is stuck, and
// an emit after it waits its turn.
func TestPostNeverWaitsForTheSink(t *testing.T) {
	release := make(chan struct{})
	var order []string
	em := &emitter{ctx: context.Background(), sink: func(_ context.Context, e Event) error {
		if u, ok := e.(ToolExecutionUpdateEvent); ok && u.ToolCallID == "slow" {
			<-release
		}
		order = append(order, e.EventType())
		return nil
	}}
	done := em.post(ToolExecutionUpdateEvent{ToolCallID: "slow"})
	posted := make(chan struct{})
	go func() {
		em.post(ToolExecutionUpdateEvent{ToolCallID: "next"})
		close(posted)
	}()
	select {
	case <-posted:
	case <-time.After(5 * time.Second):
		t.Fatal("post waited for a stuck sink")
	}
	emitted := make(chan error)
	go func() { emitted <- em.emit(TurnStartEvent{}) }()
	close(release)
	done.wait()
	if err := <-emitted; err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(order) != "[tool_execution_update tool_execution_update turn_start]" {
		t.Fatalf("order %v", order)
	}
}

// TestEmitterStopsAfterASinkError: a posted event's failure is its own (the
// next posted event is still delivered, as pi's onUpdate goes on); after
// the sink fails on an emitted event, later events are skipped (their
// waiters released with the error) and every emit reports it.
func TestEmitterStopsAfterASinkError(t *testing.T) {
	boom := errors.New("boom")
	calls := 0
	em := &emitter{ctx: context.Background(), sink: func(context.Context, Event) error {
		calls++
		return boom
	}}
	if err := em.post(TurnStartEvent{}).wait(); !errors.Is(err, boom) {
		t.Fatalf("posted: %v", err)
	}
	if err := em.post(TurnStartEvent{}).wait(); !errors.Is(err, boom) || calls != 2 {
		t.Fatalf("second posted: %v after %d calls", err, calls)
	}
	if err := em.emit(TurnEndEvent{}); !errors.Is(err, boom) || calls != 3 {
		t.Fatalf("emit: %v after %d calls", err, calls)
	}
	if err := em.post(TurnStartEvent{}).wait(); !errors.Is(err, boom) || calls != 3 {
		t.Fatalf("posted after a failed emit: %v after %d calls", err, calls)
	}
	if err := em.emit(TurnEndEvent{}); !errors.Is(err, boom) || calls != 3 {
		t.Fatalf("emit after a failed emit: %v after %d calls", err, calls)
	}
}
