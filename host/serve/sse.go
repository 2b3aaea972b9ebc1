package serve

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/wasmagent/wasmagent/internal/writedeadline"
)

// sseWriteTimeout bounds how long an event stream may make no progress:
// a client that stops reading is dropped, and resumes with Last-Event-ID.
// It applies to each piece of an event (internal/writedeadline), so that
// a slow client still gets an event larger than it can read in that time
// (one whose image or tool result runs to megabytes), instead of being
// dropped at it again at each resumption.
const sseWriteTimeout = 30 * time.Second

// streamsRetry is the Retry-After of the streams bound: a stream ends
// when its client goes away, so the wait is short.
const streamsRetry = 5 * time.Second

// openStream counts an event stream of owner, or fails with a
// *QuotaError when owner holds MaxStreams already.
func (s *Server) openStream(owner string) (release func(), err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.streams[owner] >= s.o.MaxStreams {
		return nil, &QuotaError{What: "event streams open at once", Limit: s.o.MaxStreams, RetryAfter: streamsRetry}
	}
	s.streams[owner]++
	return func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.streams[owner]--; s.streams[owner] == 0 {
			delete(s.streams, owner)
		}
	}, nil
}

// events is GET /v1/sessions/{id}/events: the session's events as
// Server-Sent Events, "id: N", "time: <Unix ms>" (a field EventSource
// ignores; a page drawing a timeline of past events reads it) and
// "data: <the event's JSON>" each, from
// after Last-Event-ID (all of them without one), then live; a comment
// line every Heartbeat while nothing comes. The stream ends when the
// session is deleted or the server stops.
func (s *Server) events(w http.ResponseWriter, r *http.Request, c Caller) {
	release, err := s.openStream(c.Owner)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	defer release()
	after := r.Header.Get("Last-Event-ID")
	stream, err := s.o.Backend.Events(r.Context(), c, r.PathValue("id"), after)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	defer stream.Close()
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no") // nginx: do not buffer
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(http.StatusOK)
	out := writedeadline.New(w, s.writeTimeout())
	write := func(b []byte) bool {
		_, err := out.Write(b)
		return err == nil && out.FlushError() == nil
	}
	if !write([]byte(": wasmagent events\nretry: 2000\n\n")) {
		return
	}
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	go func() {
		select {
		case <-s.stop:
			cancel()
		case <-ctx.Done():
		}
	}()
	buf := make([]byte, 0, 4096)
	for {
		wait, done := context.WithTimeout(ctx, s.o.Heartbeat)
		ev, err := stream.Next(wait)
		done()
		switch {
		case err == nil:
			buf = append(buf[:0], "id: "...)
			buf = append(buf, ev.ID...)
			if !ev.Time.IsZero() {
				buf = append(buf, "\ntime: "...)
				buf = strconv.AppendInt(buf, ev.Time.UnixMilli(), 10)
			}
			buf = append(buf, "\ndata: "...)
			buf = append(buf, ev.Data...)
			buf = append(buf, "\n\n"...)
			if !write(buf) {
				return
			}
		case errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil:
			if !write([]byte(": ping\n\n")) {
				return
			}
		default:
			if ctx.Err() == nil && !errors.Is(err, ErrGone) && !errors.Is(err, ErrClosed) {
				s.o.Log.Error("event stream failed", "path", r.URL.Path, "err", err)
			}
			return
		}
	}
}
