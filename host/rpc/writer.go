package rpc

import (
	"errors"
	"io"
	"sync"
	"sync/atomic"
	"time"
)

// DefaultStopGrace is Options.StopGrace's default.
const DefaultStopGrace = 5 * time.Second

// queueBytes bounds the output queued for the client: past it, a write
// waits for the client to take some (a single larger line is queued
// alone).
const queueBytes = 1 << 20

// errStopped is a write refused because Serve is ending and the client
// has not taken its output for the grace.
var errStopped = errors.New("rpc: the client does not read its output, and the server is stopping")

// lineWriter queues lines for out and writes them from one goroutine, so
// that a write blocked by a client that does not read can be given up:
// that goroutine stays blocked in out.Write, the writers of lines do not.
// Until Serve is ending, a write waits while a MiB is queued (a client
// that reads slowly slows the agent; memory stays bounded). Once it is
// ending, out has the grace to take each batch; past it, the writer stops
// and every write fails at once. Lines queued together go out in one
// write.
type lineWriter struct {
	mu      sync.Mutex
	cond    *sync.Cond
	queue   [][]byte // lines with their LF, not yet taken by the goroutine
	queued  int      // bytes in queue and in the write going on
	writing bool
	stopped bool
	err     error // the first write error

	stopCh    chan struct{} // closed by stop
	failed    chan struct{} // closed at the first write error
	watchOnce sync.Once
	busySince atomic.Int64 // UnixNano when the write going on began; 0: none
}

func newLineWriter(out io.Writer) *lineWriter {
	w := &lineWriter{stopCh: make(chan struct{}), failed: make(chan struct{})}
	w.cond = sync.NewCond(&w.mu)
	go w.run(out)
	return w
}

func (w *lineWriter) run(out io.Writer) {
	var buf []byte
	for {
		w.mu.Lock()
		for len(w.queue) == 0 && !w.stopped {
			w.cond.Wait()
		}
		if w.stopped {
			w.mu.Unlock()
			return
		}
		buf = buf[:0]
		for _, l := range w.queue {
			buf = append(buf, l...)
		}
		clear(w.queue)
		w.queue = w.queue[:0]
		w.writing = true
		w.mu.Unlock()

		w.busySince.Store(time.Now().UnixNano())
		_, err := out.Write(buf)
		w.busySince.Store(0)

		w.mu.Lock()
		w.writing = false
		w.queued -= len(buf)
		if err != nil && w.err == nil {
			w.err = err
			close(w.failed)
		}
		w.cond.Broadcast()
		w.mu.Unlock()
		if cap(buf) > 4*queueBytes {
			buf = nil // a huge line's buffer is not kept
		}
	}
}

// write queues line and a LF. It waits while the queue is full, and
// fails once out has failed or the writer has stopped.
func (w *lineWriter) write(line []byte) error {
	l := make([]byte, len(line)+1)
	copy(l, line)
	l[len(line)] = '\n'
	w.mu.Lock()
	defer w.mu.Unlock()
	for w.queued > 0 && w.queued+len(l) > queueBytes && !w.stopped && w.err == nil {
		w.cond.Wait()
	}
	switch {
	case w.err != nil:
		return w.err
	case w.stopped:
		return errStopped
	}
	w.queue = append(w.queue, l)
	w.queued += len(l)
	w.cond.Broadcast()
	return nil
}

// flush waits until every line queued is written, out failed, or the
// writer stopped.
func (w *lineWriter) flush() {
	w.mu.Lock()
	defer w.mu.Unlock()
	for (len(w.queue) > 0 || w.writing) && !w.stopped && w.err == nil {
		w.cond.Wait()
	}
}

// gone reports whether err means the client takes no more output: out
// failed (the client died) or the writer stopped.
func (w *lineWriter) gone(err error) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err != nil || w.stopped || errors.Is(err, errStopped)
}

// failure is out's first write error, or nil.
func (w *lineWriter) failure() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err
}

// ending says Serve is ending: from now on, a write out has not finished
// within grace stops the writer.
func (w *lineWriter) ending(grace time.Duration) {
	w.watchOnce.Do(func() {
		go func() {
			tick := time.NewTicker(max(grace/4, time.Millisecond))
			defer tick.Stop()
			for {
				select {
				case <-tick.C:
					if b := w.busySince.Load(); b != 0 && time.Since(time.Unix(0, b)) >= grace {
						w.stop()
						return
					}
				case <-w.stopCh:
					return
				}
			}
		}()
	})
}

// stop stops the writer: writes waiting and to come fail, and lines
// queued are dropped. Its goroutine ends once out.Write returns, if ever.
func (w *lineWriter) stop() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.stopped {
		w.stopped = true
		close(w.stopCh)
		w.cond.Broadcast()
	}
}
