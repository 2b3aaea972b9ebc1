package serve

import (
	"bufio"
	"context"
	"encoding/json"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// cutClient is an HTTP client whose connections the test can cut.
type cutClient struct {
	*http.Client
	mu    sync.Mutex
	conns []net.Conn
}

func newCutClient() *cutClient {
	c := &cutClient{}
	d := &net.Dialer{}
	c.Client = &http.Client{Transport: &http.Transport{
		DisableKeepAlives: true,
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			conn, err := d.DialContext(ctx, network, addr)
			if err == nil {
				c.mu.Lock()
				c.conns = append(c.conns, conn)
				c.mu.Unlock()
			}
			return conn, err
		},
	}}
	return c
}

// cut closes every connection (the TCP connection drops mid-stream).
func (c *cutClient) cut() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, conn := range c.conns {
		conn.Close()
	}
	c.conns = nil
}

func (h *harness) openWith(c *http.Client, id, lastID string) *sseReader {
	h.t.Helper()
	req, _ := http.NewRequest("GET", h.http.URL+"/v1/sessions/"+id+"/events", nil)
	if lastID != "" {
		req.Header.Set("Last-Event-ID", lastID)
	}
	resp, err := c.Do(req)
	if err != nil || resp.StatusCode != 200 {
		h.t.Fatalf("events: %v %v", resp, err)
	}
	return &sseReader{resp: resp, r: bufio.NewReader(resp.Body)}
}

// TestResumeAfterDroppedConnection cuts the TCP connection of the event
// stream again and again while a run goes on, reconnecting each time with
// Last-Event-ID: what the client saw, joined, is the whole journal, once.
func TestResumeAfterDroppedConnection(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	id := h.create("")
	c := newCutClient()
	h.must(202, "POST", "/v1/sessions/"+id+"/prompt", "", `{"message":"call 6 20"}`)
	var seen []sseEvent
	last, cuts := "", 0
	for done := false; !done; {
		r := h.openWith(c.Client, id, last)
		for n := 0; ; n++ {
			if n == 4 { // mid-stream: the next events may be in flight
				c.cut()
				cuts++
			}
			ev, err := r.next()
			if err != nil {
				break
			}
			seen = append(seen, ev)
			last = ev.ID
			if eventType(ev.Data) == "agent_end" {
				done = true
				break
			}
		}
		r.close()
	}
	if cuts < 3 {
		t.Fatalf("only %d cuts: the run was too short to test", cuts)
	}
	whole := h.openEvents(id, "", "")
	defer whole.close()
	all := whole.until(t, "agent_end")
	if len(seen) != len(all) {
		t.Fatalf("saw %d events over %d connections, the journal has %d", len(seen), cuts, len(all))
	}
	for i := range all {
		if seen[i] != all[i] || all[i].ID != strconv.Itoa(i+1) {
			t.Fatalf("event %d: saw %+v, journal %+v", i, seen[i], all[i])
		}
	}
}

// TestResumeAfterRestart: the journal outlives the server; a client
// resumes where it was, and new events follow with the next ids.
func TestResumeAfterRestart(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	id := h.create("")
	ev := h.openEvents(id, "", "")
	h.must(202, "POST", "/v1/sessions/"+id+"/prompt", "", `{"message":"first"}`)
	before := ev.until(t, "agent_end")
	ev.close()
	h.close()
	h2 := newHarness(t, harnessOpts{root: h.root})
	mid := before[len(before)/2].ID
	ev2 := h2.openEvents(id, "", mid)
	defer ev2.close()
	h2.must(202, "POST", "/v1/sessions/"+id+"/prompt", "", `{"message":"second"}`)
	rest := ev2.until(t, "agent_end")                 // the first run's, replayed
	rest = append(rest, ev2.until(t, "agent_end")...) // the second's, live
	n, _ := strconv.Atoi(mid)
	for i, e := range rest {
		if e.ID != strconv.Itoa(n+1+i) {
			t.Fatalf("after restart, event %d has id %s, want %d", i, e.ID, n+1+i)
		}
		if n+i < len(before) && e != before[n+i] {
			t.Fatalf("replayed %+v, first saw %+v", e, before[n+i])
		}
	}
	if len(rest) <= len(before)-n {
		t.Fatal("the second run's events did not follow")
	}
	if !strings.Contains(rest[len(rest)-2].Data+rest[len(rest)-1].Data, "second") {
		t.Fatalf("last events: %v", rest[len(rest)-2:])
	}
}

func TestHeartbeatAndEndOnDelete(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	id := h.create("")
	ev := h.openEvents(id, "", "")
	defer ev.close()
	pings := 0
	deadline := time.Now().Add(5 * time.Second)
	for pings < 2 && time.Now().Before(deadline) {
		line, err := ev.r.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		if line == ": ping\n" {
			pings++
		}
	}
	if pings < 2 {
		t.Fatal("no heartbeats on an idle stream")
	}
	h.must(204, "DELETE", "/v1/sessions/"+id, "", "")
	if _, err := ev.next(); err == nil {
		t.Fatal("the stream of a deleted session did not end")
	}
}

// TestEventsCarryTheTranscript: the message_end events of a run carry,
// byte for byte, the messages the transcript keeps (the events are the
// session's, not a copy made for HTTP).
func TestEventsCarryTheTranscript(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	id := h.create("")
	ev := h.openEvents(id, "", "")
	defer ev.close()
	h.must(202, "POST", "/v1/sessions/"+id+"/prompt", "", `{"message":"call 3"}`)
	var ended []string
	for _, e := range ev.until(t, "agent_end") {
		var x struct {
			Type    string
			Message json.RawMessage
		}
		if err := json.Unmarshal([]byte(e.Data), &x); err != nil {
			t.Fatalf("event %s is not JSON: %v", e.ID, err)
		}
		if x.Type == "message_end" {
			ended = append(ended, string(x.Message))
		}
	}
	var msgs struct{ Messages []json.RawMessage }
	json.Unmarshal(h.must(200, "GET", "/v1/sessions/"+id+"/messages", "", ""), &msgs)
	if len(ended) != len(msgs.Messages) {
		t.Fatalf("%d message_end events, %d messages", len(ended), len(msgs.Messages))
	}
	for i, m := range msgs.Messages {
		if ended[i] != string(m) {
			t.Fatalf("message %d:\n event %s\n transcript %s", i, ended[i], m)
		}
	}
}

// TestTornJournalLine: a journal whose last line was cut (the process
// died mid-write) opens without it, and the next event takes its id.
func TestTornJournalLine(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	id := h.create("")
	ev := h.openEvents(id, "", "")
	h.must(202, "POST", "/v1/sessions/"+id+"/prompt", "", `{"message":"one"}`)
	first := ev.until(t, "agent_end")
	ev.close()
	h.close()
	path := filepath.Join(h.root, LocalOwner, "events", id+".jsonl")
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"type":"agent_st`)
	f.Close()
	h2 := newHarness(t, harnessOpts{root: h.root})
	last := first[len(first)-1].ID
	ev2 := h2.openEvents(id, "", last)
	defer ev2.close()
	h2.must(202, "POST", "/v1/sessions/"+id+"/prompt", "", `{"message":"two"}`)
	next, err := ev2.next()
	n, _ := strconv.Atoi(last)
	if err != nil || next.ID != strconv.Itoa(n+1) || eventType(next.Data) != "agent_start" {
		t.Fatalf("after the torn line: %+v %v", next, err)
	}
}
