package serve

import (
	"net/http"
	"testing"
	"time"
)

// TestStreamOutlivesReadTimeout: an event stream lasts past the HTTP
// server's ReadTimeout (which `wasmagent serve` sets against clients that
// trickle a request): the request was read long ago, and Go's server
// cancels a request whose connection's read deadline passes.
func TestStreamOutlivesReadTimeout(t *testing.T) {
	h := newHarness(t, harnessOpts{http: func(s *http.Server) { s.ReadTimeout = 200 * time.Millisecond }})
	id := h.create("")
	ev := h.openEvents(id, "", "")
	defer ev.close()
	end := time.Now().Add(time.Second)
	pings := 0
	for time.Now().Before(end) {
		line, err := ev.r.ReadString('\n')
		if err != nil {
			t.Fatalf("the stream ended after %d heartbeats: %v", pings, err)
		}
		if line == ": ping\n" {
			pings++
		}
	}
	h.must(202, "POST", "/v1/sessions/"+id+"/prompt", "", `{"message":"hi"}`)
	if evs := ev.until(t, "agent_end"); len(evs) < 2 {
		t.Fatalf("events after the read timeout: %v", evs)
	}
}
