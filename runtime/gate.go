package runtime

import (
	"context"
	"fmt"
	"sync"
)

// gate lets at most n calls through at once; the others wait, and a
// waiting call whose context ends gives up.
type gate struct {
	slots chan struct{}
	mu    sync.Mutex
	wait  int
	run   int
	peak  int
}

func newGate(n int) *gate { return &gate{slots: make(chan struct{}, n)} }

func (g *gate) enter(ctx context.Context) error {
	select {
	case g.slots <- struct{}{}:
	default:
		g.mu.Lock()
		g.wait++
		g.mu.Unlock()
		select {
		case g.slots <- struct{}{}:
			g.mu.Lock()
			g.wait--
			g.mu.Unlock()
		case <-ctx.Done():
			g.mu.Lock()
			g.wait--
			g.mu.Unlock()
			return fmt.Errorf("waiting for a free slot (%d calls may run at once): %w", cap(g.slots), callerStopped(ctx))
		}
	}
	g.mu.Lock()
	g.run++
	g.peak = max(g.peak, g.run)
	g.mu.Unlock()
	return nil
}

func (g *gate) leave() {
	g.mu.Lock()
	g.run--
	g.mu.Unlock()
	<-g.slots
}

func (g *gate) stats() Stats {
	g.mu.Lock()
	defer g.mu.Unlock()
	return Stats{Running: g.run, Waiting: g.wait, MaxRunning: g.peak}
}
