package cluster

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/wasmagent/wasmagent/host/session"
)

// A stream whose events are deleted from JetStream under it ends with an
// error, whether it reads ahead or pulls each event, once its consumer
// could not be made again (eventResetAttempts); and a stream that waits
// on such a consumer returns when its context ends. On the old main a
// pulling stream's Next waited for good, whatever its context said: the
// NATS client makes an ordered consumer again without end, and a pull
// waits for it.
func TestStreamEndsWhenItsEventsAreDeleted(t *testing.T) {
	defer func(a int, f time.Duration) { eventResetAttempts, pullRetryFor = a, f }(eventResetAttempts, pullRetryFor)
	ctx := context.Background()
	for _, c := range []struct {
		name     string
		ahead    *readAhead
		attempts int // -1: without end, as the NATS client's default
	}{
		{"pulling", &readAhead{}, 1},
		{"reading ahead", &readAhead{free: 1 << 30}, 1},
		{"pulling, cancelled", &readAhead{}, -1},
	} {
		t.Run(c.name, func(t *testing.T) {
			eventResetAttempts, pullRetryFor = c.attempts, 0
			h := startHost(t, startNATS(t), &session.FileStore{Dir: t.TempDir()}, 0)
			const id = "0193a000-0000-7000-8000-0000000000e3"
			ev, err := openEvents(ctx, h.js, id)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := ev.publish(ctx, []byte(`{"type":"e"}`)); err != nil {
				t.Fatal(err)
			}
			r, err := openReader(ctx, h.js, id, 0, c.ahead)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			if _, err := r.Next(ctx); err != nil {
				t.Fatal(err)
			}
			if err := h.js.DeleteStream(ctx, eventStream); err != nil {
				t.Fatal(err)
			}
			cctx, cancel := context.WithCancel(ctx)
			defer cancel()
			done := make(chan error, 1)
			go func() {
				_, err := r.Next(cctx)
				done <- err
			}()
			if c.attempts < 0 {
				time.Sleep(100 * time.Millisecond) // the pull under way
				cancel()
			}
			select {
			case err := <-done:
				cancelled := errors.Is(err, context.Canceled)
				if err == nil || cancelled != (c.attempts < 0) {
					t.Fatalf("Next returned %v", err)
				}
			case <-time.After(90 * time.Second): // a liveness guard, not a measure
				t.Fatal("Next did not return in 90 s")
			}
		})
	}
}
