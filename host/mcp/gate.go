package mcp

import (
	"context"
	"sync"
)

// gate orders a session's calls: any number of parallel calls together,
// or one sequential call alone (as a batch with a sequential tool runs in
// the loop). A waiting sequential call holds new parallel ones back, so it
// is not starved. Waiting honours the call's context: a call cancelled
// while it waits never starts.
type gate struct {
	mu      sync.Mutex
	shared  int  // parallel calls running
	alone   bool // a sequential call running
	waiting int  // sequential calls waiting
	changed chan struct{}
}

func newGate() *gate { return &gate{changed: make(chan struct{})} }

func (g *gate) acquire(ctx context.Context, exclusive bool) error {
	queued := false
	for {
		g.mu.Lock()
		free := !g.alone && (exclusive && g.shared == 0 || !exclusive && g.waiting == 0)
		if free {
			if exclusive {
				g.alone = true
				if queued {
					g.waiting--
				}
			} else {
				g.shared++
			}
			g.mu.Unlock()
			return nil
		}
		if exclusive && !queued {
			queued = true
			g.waiting++
		}
		ch := g.changed
		g.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			if queued {
				g.mu.Lock()
				g.waiting--
				g.broadcast()
				g.mu.Unlock()
			}
			return ctx.Err()
		}
	}
}

func (g *gate) release(exclusive bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if exclusive {
		g.alone = false
	} else {
		g.shared--
	}
	g.broadcast()
}

// broadcast wakes every waiter; g.mu is held.
func (g *gate) broadcast() {
	close(g.changed)
	g.changed = make(chan struct{})
}
