package serve

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	goruntime "runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/wasmagent/wasmagent/host/eventwire"
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
	code, body, hdr := h.eventsStatus(a, tokenA, "")
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
		code, _, _ = h.eventsStatus(a, tokenA, "")
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
func (h *harness) eventsStatus(id, token, after string) (int, []byte, http.Header) {
	h.t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", h.http.URL+"/v1/sessions/"+id+"/events", nil)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if after != "" {
		req.Header.Set("Last-Event-ID", after)
	}
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

// endless is a body that never ends.
type endless struct{}

func (endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'x'
	}
	return len(p), nil
}

// A body without Content-Length (chunked) that never ends is refused with
// 413 once past max_body, on every route that reads a body: the server
// never reads, nor holds, more than the bound.
func TestEndlessChunkedBody(t *testing.T) {
	h := newHarness(t, harnessOpts{server: func(o *Options) { o.MaxBodyBytes = 64 << 10 }})
	id := h.create("")
	for _, r := range routes {
		if r.method != "POST" {
			continue
		}
		path := strings.ReplaceAll(r.path, "{id}", id)
		t.Run(path, func(t *testing.T) {
			req, _ := http.NewRequest("POST", h.http.URL+path, io.MultiReader(strings.NewReader(`{"message":"`), endless{}))
			req.ContentLength = -1
			resp, err := h.http.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusRequestEntityTooLarge || !strings.Contains(string(body), "too_large") {
				t.Fatalf("status %d: %s", resp.StatusCode, body)
			}
		})
	}
}

// Session ids that try paths, encodings or lengths answer 404 on every
// route, as an id never made; a Last-Event-ID that is not an event of the
// session answers 400 naming the header; a deleted session answers 404
// everywhere, its stream included.
func TestHostileIDsAndOffsets(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	id := h.create("")
	h.must(202, "POST", "/v1/sessions/"+id+"/prompt", "", `{"message":"hi"}`)
	h.waitIdle(id, "")
	for _, bad := range []string{"..", "..%2F..%2Fetc%2Fpasswd", "%2e%2e", "x%00", strings.Repeat("0", 10000), strings.ToUpper(id), id + "%20", id[:len(id)-1], id + ".jsonl", "%2Ftmp%2F" + id} {
		for _, r := range routes {
			if !strings.Contains(r.path, "{id}") {
				continue
			}
			code, body, _ := h.do(r.method, strings.ReplaceAll(r.path, "{id}", bad), "", bodyOf(r.path))
			if code != 404 {
				t.Errorf("%s %s with id %.40q: %d %s", r.method, r.path, bad, code, body)
			}
		}
	}
	var info SessionInfo
	json.Unmarshal(h.must(200, "GET", "/v1/sessions/"+id, "", ""), &info)
	last, _ := strconv.Atoi(info.LastEventID)
	for _, after := range []string{"-1", "1e3", "99999999999999999999", "+1", "0x1", "01", strconv.Itoa(last + 1), "abc"} {
		code, body, _ := h.eventsStatus(id, "", after)
		if code != 400 || !strings.Contains(string(body), "Last-Event-ID") {
			t.Errorf("Last-Event-ID %q: %d %s", after, code, body)
		}
	}
	ev := h.openEvents(id, "", info.LastEventID) // right at the end: follows what comes
	defer ev.close()
	h.must(204, "DELETE", "/v1/sessions/"+id, "", "")
	if _, err := ev.next(); err == nil {
		t.Fatal("the stream of a deleted session did not end")
	}
	for _, r := range routes {
		if strings.Contains(r.path, "{id}") {
			if code, body, _ := h.do(r.method, strings.ReplaceAll(r.path, "{id}", id), "", bodyOf(r.path)); code != 404 {
				t.Errorf("%s %s after DELETE: %d %s", r.method, r.path, code, body)
			}
		}
	}
}

// bodyOf is a valid body for a route.
func bodyOf(path string) string {
	if strings.HasSuffix(path, "/abort") {
		return "{}"
	}
	return `{"message":"x"}`
}

// A tool's updates reach a session's journal within their budget
// (eventwire): 2,000 empty updates on 16 KB of arguments, which each
// update line repeats, wrote 32 MB into the journal on the old main,
// and a plugin's default grant allows 10,000 a call, 128 calls a
// message. The journal holds at most the updates' floor (64 KiB here),
// the budget of the message that made the call (twice its floor and 4
// times its 16 KB), and the run's other events.
func TestToolUpdatesBoundedInJournal(t *testing.T) {
	const floor = 64 << 10
	h := newHarness(t, harnessOpts{events: eventwire.Options{Floor: floor}})
	id := h.create("")
	ev := h.openEvents(id, "", "")
	defer ev.close()
	h.must(202, "POST", "/v1/sessions/"+id+"/prompt", "", `{"message":"flood 2000 16384"}`)
	ends := 0
	for _, e := range ev.until(t, "agent_end") {
		if eventType(e.Data) == "tool_execution_end" {
			ends++
		}
	}
	if ends != 1 {
		t.Fatalf("%d tool_execution_end events, want 1", ends)
	}
	paths, _ := filepath.Glob(filepath.Join(h.root, "*", "events", id+".jsonl"))
	if len(paths) != 1 {
		t.Fatalf("journals of %s: %v", id, paths)
	}
	fi, err := os.Stat(paths[0])
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("journal: %d bytes", fi.Size())
	if bound := int64(3*floor + 12*16<<10 + 256<<10); fi.Size() > bound {
		t.Fatalf("the journal holds %d bytes after 2,000 empty updates, over %d (the budgets and the run's other events)", fi.Size(), bound)
	}
}

// A journal is scanned through a buffer smaller than some of its lines:
// lines longer than it, a bad line among them and a torn last line are
// found as when the journal was read whole.
func TestJournalLongLines(t *testing.T) {
	var b strings.Builder
	var want []string
	for i, n := range []int{10, 70_000, 200_000, 0, 65_536 - 24, 5} {
		obj := `{"type":"x","pad":"` + strings.Repeat("p", n) + `"}`
		if i == 3 {
			b.WriteString("bad line\n")
			want = append(want, "")
			continue
		}
		b.WriteString(strconv.Itoa(1000+i) + " " + obj + "\n")
		want = append(want, obj)
	}
	b.WriteString(`17 {"torn":`)
	path := filepath.Join(t.TempDir(), "j.jsonl")
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	j, err := openJournal(path, false)
	if err != nil {
		t.Fatal(err)
	}
	defer j.f.Close()
	if j.count() != len(want) {
		t.Fatalf("%d events, want %d", j.count(), len(want))
	}
	for i, w := range want {
		ev, bad, _, err := j.get(i + 1)
		if err != nil || bad != (w == "") || (w != "" && string(ev.Data) != w) {
			t.Fatalf("event %d: bad %v, err %v, %d bytes; want %d bytes", i+1, bad, err, len(ev.Data), len(w))
		}
	}
	if fi, _ := os.Stat(path); fi.Size() != int64(len(b.String())-len(`17 {"torn":`)) {
		t.Fatalf("the torn line was not cut: %d bytes", fi.Size())
	}
}

// Opening a journal holds one line at a time, not the file: on the old
// main a journal of 4 MiB was read whole (9 MiB allocated, and some
// GB for a session whose runs made a journal that large, at every
// open).
func TestJournalOpenReadsLineByLine(t *testing.T) {
	line := "1000 " + `{"type":"x","pad":"` + strings.Repeat("p", 4000) + `"}` + "\n"
	path := filepath.Join(t.TempDir(), "j.jsonl")
	if err := os.WriteFile(path, []byte(strings.Repeat(line, 1024)), 0o600); err != nil {
		t.Fatal(err)
	}
	var before, after goruntime.MemStats
	goruntime.ReadMemStats(&before)
	j, err := openJournal(path, false)
	goruntime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	defer j.f.Close()
	if j.count() != 1024 {
		t.Fatalf("%d events, want 1024", j.count())
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 1<<20 {
		t.Fatalf("opening a journal of 4 MiB allocated %d KiB, want at most 1 MiB", got>>10)
	}
}

// An event over LocalOptions.MaxEventBytes is journaled as a stand-in
// naming its type and size, as the cluster backend publishes it, and
// the transcript keeps it whole. On the old main every event was
// journaled whole: a run's turn_end and agent_end carry all its tool
// results (128 calls of a plugin's 8 MiB made a line of a GiB), and each
// stream reading the journal held the line while it sent it.
func TestLargeEventsAreStandIns(t *testing.T) {
	h := newHarness(t, harnessOpts{maxEvent: 32 << 10})
	id := h.create("")
	big := strings.Repeat("z", 100<<10)
	h.must(202, "POST", "/v1/sessions/"+id+"/prompt", "", `{"message":"slow 1 `+big+`"}`)
	ev := h.openEvents(id, "", "")
	defer ev.close()
	standIns := 0
	for _, e := range ev.until(t, "agent_end") {
		if len(e.Data) > 32<<10 {
			t.Fatalf("an event of %d bytes in the stream, over the bound of %d", len(e.Data), 32<<10)
		}
		var s struct {
			Type    string
			Omitted int `json:"omittedBytes"`
		}
		json.Unmarshal([]byte(e.Data), &s)
		if s.Omitted > 100<<10 && s.Type != "" {
			standIns++
		}
	}
	if standIns < 3 { // the user's message_start and message_end, agent_end
		t.Fatalf("%d stand-ins, want the user message's start and end and agent_end", standIns)
	}
	if body := h.must(200, "GET", "/v1/sessions/"+id+"/messages", "", ""); !strings.Contains(string(body), big) {
		t.Fatalf("the transcript lost the prompt (%d bytes)", len(body))
	}
}
