package runtime

import (
	"context"
	"sync"
	"time"
)

// pool keeps up to size fresh instances of a plugin ready. One goroutine
// fills it in the background and refills it after each call (not at the
// take: on a small machine the refill would compete with the call for the
// CPU); a call that finds it empty instantiates on its own. Instances are
// handed out once.
type pool struct {
	p     *Plugin
	size  int
	ready chan *instance
	wake  chan struct{}
	done  chan struct{}
	wg    sync.WaitGroup
	once  sync.Once
}

func newPool(p *Plugin, size int) *pool {
	pl := &pool{p: p, size: size, ready: make(chan *instance, size), wake: make(chan struct{}, 1), done: make(chan struct{})}
	if size > 0 {
		pl.wg.Add(1)
		p.r.goSafely("pool", pl.fill)
	}
	return pl
}

func (pl *pool) take(ctx context.Context) (*instance, error) {
	select {
	case inst := <-pl.ready:
		return inst, nil
	default:
	}
	return pl.p.instantiate(ctx)
}

func (pl *pool) signal() {
	if pl.size == 0 {
		return
	}
	select {
	case pl.wake <- struct{}{}:
	default:
	}
}

// fill keeps the pool full. A failing instantiation is logged and tried
// again only once a call has run since (a call that instantiated on its
// own; its end wakes the pool), and after a pause that doubles up to a
// few seconds: a module whose initialization traps, or loops until its
// timeout, would otherwise burn CPU in the background for as long as it
// is loaded, called or not (40% of a core, before). Calls meanwhile
// instantiate, and fail, on their own. Should fill itself
// panic, goSafely logs it and calls instantiate on their own.
func (pl *pool) fill() {
	defer pl.wg.Done()
	backoff := 50 * time.Millisecond
	for {
		for len(pl.ready) < pl.size {
			inst, err := pl.p.instantiate(context.Background())
			if err != nil {
				pl.p.r.log.Warn("pool: instantiation failed; tried again once a call has run", "plugin", pl.p.name, "err", err)
				select {
				case <-time.After(backoff):
				case <-pl.done:
					return
				}
				backoff = min(2*backoff, 5*time.Second)
				select {
				case <-pl.wake:
				case <-pl.done:
					return
				}
				continue
			}
			backoff = 50 * time.Millisecond
			select {
			case pl.ready <- inst:
			case <-pl.done:
				inst.close()
				return
			}
		}
		select {
		case <-pl.wake:
		case <-pl.done:
			return
		}
	}
}

func (pl *pool) close() {
	pl.once.Do(func() {
		close(pl.done)
		pl.wg.Wait()
		for {
			select {
			case inst := <-pl.ready:
				inst.close()
			default:
				return
			}
		}
	})
}
