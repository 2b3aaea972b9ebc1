package host

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
)

// TestEmitterQueueBoundProperty: generated producers post updates of
// generated sizes while the sink is stalled, then the sink resumes. What
// the queue held at the stall (every update delivered after it) is within
// the byte bound, or a lone update; each producer's updates arrive in the
// order posted, with their own payloads; when everything posted fits the
// bound nothing is left out; and once the sink keeps up (each post waited
// for, emits between) every event arrives, in order. On the old main the
// queue held everything posted. WASMAGENT_EMITTERBOUND_N sets the rounds
// (default 30), WASMAGENT_EMITTERBOUND_SEED the first seed.
func TestEmitterQueueBoundProperty(t *testing.T) {
	n, seed := envCount(t, "WASMAGENT_EMITTERBOUND_N", 30), envCount(t, "WASMAGENT_EMITTERBOUND_SEED", 1)
	buf := make(json.RawMessage, 128<<10)
	for round := range n {
		s := uint64(seed + round)
		rng := rand.New(rand.NewPCG(s, s))
		limit := 6*queuedUpdateOverhead + rng.IntN(64<<10)
		producers := 1 + rng.IntN(5)
		var mu sync.Mutex
		var delivered []deliveredUpdate
		entered, release := make(chan struct{}), make(chan struct{})
		em := &emitter{ctx: context.Background(), limit: limit, sink: func(_ context.Context, e Event) error {
			u, ok := e.(ToolExecutionUpdateEvent)
			if !ok {
				return nil
			}
			if u.ToolCallID == "gate" {
				close(entered)
				<-release
				return nil
			}
			raw := u.PartialResult.(json.RawMessage)
			mu.Lock()
			delivered = append(delivered, deliveredUpdate{u.ToolCallID, int(raw[0]) | int(raw[1])<<8, len(raw)})
			mu.Unlock()
			return nil
		}}
		em.post(ToolExecutionUpdateEvent{ToolCallID: "gate", PartialResult: json.RawMessage("{}")})
		<-entered
		sizes := make([][]int, producers)
		var wg sync.WaitGroup
		var all []*pending
		for p := range producers {
			m := 1 + rng.IntN(40)
			for range m {
				size := 2 + rng.IntN(limit/2+1)
				if rng.IntN(10) == 0 {
					size = 2 + rng.IntN(2*limit)
				}
				sizes[p] = append(sizes[p], min(size, len(buf)))
			}
		}
		var allMu sync.Mutex
		for p := range producers {
			wg.Go(func() {
				for i, size := range sizes[p] {
					b := buf[:size:size]
					d := em.post(ToolExecutionUpdateEvent{ToolCallID: fmt.Sprint("p", p), PartialResult: withIndex(b, i)})
					allMu.Lock()
					all = append(all, d)
					allMu.Unlock()
				}
			})
		}
		wg.Wait()
		close(release)
		for _, d := range all {
			if err := d.wait(); err != nil {
				t.Fatalf("seed %d: %v", s, err)
			}
		}
		held, total, posted := 0, 0, 0
		for _, g := range delivered {
			held += queuedUpdateOverhead + g.n
		}
		for _, ss := range sizes {
			for _, size := range ss {
				total += queuedUpdateOverhead + size
				posted++
			}
		}
		if held > limit && len(delivered) > 1 {
			t.Fatalf("seed %d: the queue held %d updates, %d bytes, for a bound of %d (all posted: %d bytes)", s, len(delivered), held, limit, total)
		}
		if total <= limit && len(delivered) != posted {
			t.Fatalf("seed %d: %d of %d updates delivered, though all fit the bound (%d of %d bytes)", s, len(delivered), posted, total, limit)
		}
		checkInOrder(t, s, delivered, sizes, false)

		// The sink keeps up now (each producer waits for its event, and
		// the producers' events fit the bound together): every event
		// arrives.
		delivered = delivered[:0]
		more := make([][]int, producers)
		for p := range producers {
			for range 1 + rng.IntN(20) {
				more[p] = append(more[p], 2+rng.IntN(limit/producers-queuedUpdateOverhead-1))
			}
		}
		for p := range producers {
			wg.Go(func() {
				for i, size := range more[p] {
					e := ToolExecutionUpdateEvent{ToolCallID: fmt.Sprint("p", p), PartialResult: withIndex(buf[:size:size], i)}
					var err error
					if i%3 == 2 {
						err = em.emit(e)
					} else {
						err = em.post(e).wait()
					}
					if err != nil {
						t.Error(err)
					}
				}
			})
		}
		wg.Wait()
		checkInOrder(t, s, delivered, more, true)
		em.mu.Lock()
		held, queued := em.held, len(em.queue)
		em.mu.Unlock()
		if held != 0 || queued != 0 {
			t.Fatalf("seed %d: the drained queue counts %d bytes, %d events", s, held, queued)
		}
	}
}

// deliveredUpdate is an update the sink got: its call, its index among
// the call's updates, its size.
type deliveredUpdate struct {
	call string
	i, n int
}

// withIndex copies b with i in its first two bytes.
func withIndex(b json.RawMessage, i int) json.RawMessage {
	c := append(json.RawMessage(nil), b...)
	c[0], c[1] = byte(i), byte(i>>8)
	return c
}

// checkInOrder checks that each producer's delivered updates came in the
// order posted, each with its size, and all of them when every is set.
func checkInOrder(t *testing.T, seed uint64, delivered []deliveredUpdate, sizes [][]int, every bool) {
	t.Helper()
	next := map[string]int{}
	for _, d := range delivered {
		var p int
		fmt.Sscanf(d.call, "p%d", &p)
		if d.i < next[d.call] || d.i >= len(sizes[p]) || sizes[p][d.i] != d.n {
			t.Fatalf("seed %d: %s's update %d (%d bytes) out of order or not as posted (next %d)", seed, d.call, d.i, d.n, next[d.call])
		}
		if every && d.i != next[d.call] {
			t.Fatalf("seed %d: %s's update %d came after %d: an update was lost", seed, d.call, d.i, next[d.call]-1)
		}
		next[d.call] = d.i + 1
	}
	if every {
		for p, ss := range sizes {
			if got := next[fmt.Sprint("p", p)]; got != len(ss) {
				t.Fatalf("seed %d: p%d: %d of %d updates delivered", seed, p, got, len(ss))
			}
		}
	}
}
