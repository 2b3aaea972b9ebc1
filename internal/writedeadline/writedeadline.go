// Package writedeadline bounds how long an HTTP response may make no
// progress. Each piece of a write, and each flush, gets its own write
// deadline: a client that stops reading fails the write once the deadline
// passes, which frees the handler (and whatever it holds: a session's
// stream, a goroutine), while a client that reads slowly, but reads,
// still gets a message larger than it can read within one deadline (an
// event or an answer of megabytes), since the deadline bounds the time
// without progress, not the message's.
//
// `wasmagent serve`'s event streams and `wasmagent mcp --http` answers
// are written through it.
package writedeadline

import (
	"net/http"
	"time"
)

// Piece is the most written under one deadline. A client reading at
// 800 KB/s (a slow link) takes 40 ms for it, far within any deadline
// worth setting; a larger piece would ask a slow client for more within
// one deadline.
const Piece = 32 << 10

// ResponseWriter writes a response with a deadline per Piece and per
// flush. Where the underlying writer has no deadlines (a recorder in a
// test), writes pass through without one.
//
// The last deadline set stays for what net/http writes after the handler
// returns (the buffered end of the response), so a client that stops
// reading cannot hold that either; net/http clears it before the
// connection's next request.
type ResponseWriter struct {
	http.ResponseWriter
	rc      *http.ResponseController
	timeout time.Duration
}

var (
	_ http.ResponseWriter = (*ResponseWriter)(nil)
	_ http.Flusher        = (*ResponseWriter)(nil)
)

// New returns w writing each Piece, and each flush, within timeout, which
// must be positive.
func New(w http.ResponseWriter, timeout time.Duration) *ResponseWriter {
	return &ResponseWriter{ResponseWriter: w, rc: http.NewResponseController(w), timeout: timeout}
}

// Write writes b in pieces of at most Piece bytes, each with its own
// deadline. It returns at the first piece that fails (a client that
// stopped reading: a timeout).
func (w *ResponseWriter) Write(b []byte) (int, error) {
	written := 0
	for len(b) > 0 {
		n := min(len(b), Piece)
		w.rc.SetWriteDeadline(time.Now().Add(w.timeout)) // ErrNotSupported: no deadline
		m, err := w.ResponseWriter.Write(b[:n])
		written += m
		if err != nil {
			return written, err
		}
		b = b[n:]
	}
	return written, nil
}

// FlushError flushes what is buffered within the deadline.
func (w *ResponseWriter) FlushError() error {
	w.rc.SetWriteDeadline(time.Now().Add(w.timeout))
	return w.rc.Flush()
}

// Flush implements http.Flusher; FlushError says whether it failed.
func (w *ResponseWriter) Flush() { w.FlushError() }

// Unwrap returns the underlying writer, for http.ResponseController.
func (w *ResponseWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
