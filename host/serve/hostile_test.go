package serve

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestStreamOutlivesReadTimeout: an event stream lasts past the HTTP
// server's ReadTimeout (which `wasmagent serve` sets against clients that
// trickle a request): Go's server lifts the read deadline once a request
// is read, and the stream must not depend on a deadline of its own.
func TestStreamOutlivesReadTimeout(t *testing.T) {
	h := newHarness(t, harnessOpts{http: func(s *http.Server) { s.ReadTimeout = 100 * time.Millisecond }})
	id := h.create("")
	ev := h.openEvents(id, "", "")
	defer ev.close()
	for pings := 0; pings < 8; {
		line, err := ev.r.ReadString('\n')
		if err != nil {
			t.Fatalf("the stream ended after %d heartbeats: %v", pings, err)
		}
		if line == ": ping\n" {
			pings++
		}
	}
	h.must(202, "POST", "/v1/sessions/"+id+"/prompt", "", `{"message":"hi"}`)
	ev.until(t, "agent_end")
}

// TestStreamsBound: an owner holds at most MaxStreams event streams at
// once; one more gets 429 with Retry-After, and other owners are not
// touched. Streams nobody reads stall neither the run nor the reading
// stream, and a stream closed by its client frees its place.
func TestStreamsBound(t *testing.T) {
	h := newHarness(t, harnessOpts{tokens: twoTokens(t), server: func(o *Options) { o.MaxStreams = 2 }})
	a := h.create(tokenA)
	stalled := []*sseReader{h.openEvents(a, tokenA, ""), h.openEvents(a, tokenA, "")}
	defer func() {
		for _, s := range stalled {
			s.close()
		}
	}()
	code, body, hdr := h.eventsStatus(a, tokenA)
	if code != http.StatusTooManyRequests || hdr.Get("Retry-After") == "" {
		t.Fatalf("a third stream: %d %s (Retry-After %q), want 429 with Retry-After", code, body, hdr.Get("Retry-After"))
	}
	if eventType(string(body)) != "" || !strings.Contains(string(body), "quota_exceeded") {
		t.Fatalf("the 429's body: %s", body)
	}
	b := h.create(tokenB)
	bob := h.openEvents(b, tokenB, "")
	defer bob.close()
	h.must(202, "POST", "/v1/sessions/"+a+"/prompt", tokenA, `{"message":"call 4"}`)
	h.waitIdle(a, tokenA)
	h.must(202, "POST", "/v1/sessions/"+b+"/prompt", tokenB, `{"message":"hi"}`)
	bob.until(t, "agent_end")
	stalled[0].close()
	// The server sees the client go at once, but its handler may take
	// a moment to return.
	deadline := time.Now().Add(10 * time.Second)
	for {
		code, _, _ = h.eventsStatus(a, tokenA)
		if code != http.StatusTooManyRequests || time.Now().After(deadline) {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if code == http.StatusTooManyRequests {
		t.Fatal("a stream closed by its client still counts")
	}
}

// eventsStatus opens the events of id and returns the status, and the
// body and header of an error; a stream that opens is closed at once.
func (h *harness) eventsStatus(id, token string) (int, []byte, http.Header) {
	h.t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", h.http.URL+"/v1/sessions/"+id+"/events", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := h.http.Client().Do(req)
	if err != nil {
		h.t.Fatal(err)
	}
	defer resp.Body.Close()
	var body []byte
	if resp.StatusCode != 200 {
		body, _ = io.ReadAll(resp.Body)
	}
	return resp.StatusCode, body, resp.Header
}
