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

// errStopped is a write refused because Serve is ending and the client
// has not taken its output for the grace.
var errStopped = errors.New("rpc: the client does not read its output, and the server is stopping")

// lineWriter writes lines to out, one at a time, from one goroutine, so
// that a write blocked by a client that does not read can be given up:
// the goroutine stays blocked in out.Write, the writers of lines do not.
// Until Serve is ending, a write waits as long as out does (a client
// that reads slowly slows the agent; memory stays bounded). Once it is
// ending, out has the grace to take each line; past it, the writer
// stops and every write fails at once.
type lineWriter struct {
	lines     chan writeReq
	stopped   chan struct{}
	stopOnce  sync.Once
	watchOnce sync.Once
	busySince atomic.Int64 // UnixNano when the blocked out.Write began; 0: none

	failOnce sync.Once
	failed   chan struct{} // closed at the first write that fails
	failErr  error         // that write's error, set before failed closes
}

type writeReq struct {
	line []byte // with its LF
	done chan error
}

func newLineWriter(out io.Writer) *lineWriter {
	w := &lineWriter{lines: make(chan writeReq), stopped: make(chan struct{}), failed: make(chan struct{})}
	go func() {
		for {
			select {
			case req := <-w.lines:
				w.busySince.Store(time.Now().UnixNano())
				_, err := out.Write(req.line)
				w.busySince.Store(0)
				if err != nil {
					w.failOnce.Do(func() { w.failErr = err; close(w.failed) })
				}
				req.done <- err
			case <-w.stopped:
				return
			}
		}
	}()
	return w
}

// write writes line and a LF, and returns once out took them or failed,
// or with errStopped once the writer has stopped.
func (w *lineWriter) write(line []byte) error {
	buf := make([]byte, len(line)+1)
	copy(buf, line)
	buf[len(line)] = '\n'
	req := writeReq{line: buf, done: make(chan error, 1)}
	select {
	case w.lines <- req:
	case <-w.stopped:
		return errStopped
	}
	select {
	case err := <-req.done:
		return err
	case <-w.stopped:
		return errStopped
	}
}

// gone reports whether err means the client takes no more output: out
// failed (the client died) or the writer stopped.
func (w *lineWriter) gone(err error) bool {
	select {
	case <-w.failed:
		return true
	default:
		return errors.Is(err, errStopped)
	}
}

// ending says Serve is ending: from now on, a line out has not taken
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
				case <-w.stopped:
					return
				}
			}
		}()
	})
}

// stop stops the writer: writes waiting and to come fail. Its goroutine
// ends once out.Write returns, if ever.
func (w *lineWriter) stop() { w.stopOnce.Do(func() { close(w.stopped) }) }
