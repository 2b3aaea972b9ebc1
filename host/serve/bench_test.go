package serve

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wasmagent/wasmagent/host"
	"github.com/wasmagent/wasmagent/host/config"
	"github.com/wasmagent/wasmagent/host/hosttest"
	"github.com/wasmagent/wasmagent/host/session"
)

// benchSessions is how many sessions the load bench runs at once
// (BENCH_SESSIONS overrides it).
var benchSessions = 200

func init() {
	if n, err := strconv.Atoi(os.Getenv("BENCH_SESSIONS")); err == nil && n > 0 {
		benchSessions = n
	}
}

// loadSetup wires a configuration as "wasmagent serve" would: the
// scripted model (every turn a call of the calc plugin, and max_turns 1,
// so that each run is one model turn and one Wasm tool call) and the calc
// plugin. It skips without the plugin (make plugins).
func loadSetup(b *testing.B, turns int) *config.Setup {
	b.Helper()
	plugin, _ := filepath.Abs("../../plugins/calc/calc.wasm")
	if _, err := os.Stat(plugin); err != nil {
		b.Skipf("%s is not built (make plugins)", plugin)
	}
	dir := b.TempDir()
	var script struct {
		Turns []json.RawMessage `json:"turns"`
	}
	for i := range turns {
		script.Turns = append(script.Turns, json.RawMessage(fmt.Sprintf(
			`{"content":[{"type":"text","text":"Computing."},{"type":"toolCall","id":"call_%d","name":"calc","arguments":{"expression":"%d*7+1"}}]}`, i, i)))
	}
	data, _ := json.Marshal(script)
	os.WriteFile(filepath.Join(dir, "script.json"), data, 0o600)
	toml := fmt.Sprintf("[model]\nprovider = \"scripted\"\nscript = \"script.json\"\n\n[agent]\nmax_turns = 1\n\n[[tool]]\nplugin = %q\n", plugin)
	os.WriteFile(filepath.Join(dir, "agent.toml"), []byte(toml), 0o600)
	f, err := config.Load(filepath.Join(dir, "agent.toml"))
	if err != nil {
		b.Fatal(err)
	}
	s, err := f.Wire(context.Background(), config.WireOptions{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	return s
}

// BenchmarkServeLoad runs benchSessions sessions at once over loopback
// HTTP, each watched by its own SSE stream: create, prompt, read events
// to agent_end. It reports events per second, the time from a prompt's
// POST to its first event (p50, p99), the heap each open session holds,
// and fails if any stream lost or repeated an event (its ids against a
// replay of the journal). Run by make bench (-benchtime 1x), not as a test.
//
// Two variants: calc.wasm, the plugin as agent.toml loads it (a fresh
// instance per call), and go-tool, the same run with a Go function as the
// tool, which leaves the server's own cost.
func BenchmarkServeLoad(b *testing.B) {
	b.Run("calc.wasm", func(b *testing.B) { benchServeLoad(b, false) })
	b.Run("go-tool", func(b *testing.B) { benchServeLoad(b, true) })
}

func benchServeLoad(b *testing.B, goTool bool) {
	s := loadSetup(b, benchSessions*(b.N+2))
	info := host.ModelInfo{Provider: "scripted", ID: "scripted"}
	if d, ok := s.Model.(host.ModelDescriber); ok {
		info = d.ModelInfo()
	}
	agent := s.Options
	if goTool {
		agent.Tools = []host.Tool{hosttest.Tool("calc", "", func(_ context.Context, _ string, args json.RawMessage, _ host.UpdateFunc) (host.ToolResult, error) {
			return host.ToolResult{Content: host.Text("42")}, nil
		})}
	}
	for i := 0; i < b.N; i++ {
		backend, err := NewLocal(LocalOptions{
			Root: b.TempDir(), Events: s.Events, NoSync: os.Getenv("BENCH_NOSYNC") != "",
			Session: session.Options{Agent: agent, Models: []session.Model{{Info: info, Model: s.Model}}},
		})
		if err != nil {
			b.Fatal(err)
		}
		srv, _ := New(Options{Backend: backend})
		hs := httptest.NewServer(srv.Handler())
		client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 2 * benchSessions}}

		results := make([]loadResult, benchSessions)
		var wg sync.WaitGroup
		start := time.Now()
		for k := range benchSessions {
			wg.Add(1)
			go func() {
				defer wg.Done()
				results[k] = oneLoadSession(client, hs.URL)
			}()
		}
		wg.Wait()
		elapsed := time.Since(start)
		// The heap the open sessions hold: with them open, less after
		// they are closed (what the test's model keeps stays in both).
		client.CloseIdleConnections()
		runtime.GC()
		var open runtime.MemStats
		runtime.ReadMemStats(&open)

		events := 0
		var firsts []time.Duration
		for k, r := range results {
			if r.err != nil {
				b.Fatalf("session %d: %v", k, r.err)
			}
			events += len(r.ids)
			firsts = append(firsts, r.first)
			// Nothing lost or repeated: the ids are 1..n, and a replay of
			// the journal has exactly as many.
			for j, id := range r.ids {
				if id != strconv.Itoa(j+1) {
					b.Fatalf("session %d: event %d has id %s", k, j, id)
				}
			}
			replay := oneReplay(client, hs.URL, r.session)
			if replay != len(r.ids) {
				b.Fatalf("session %d: saw %d events, the journal has %d", k, len(r.ids), replay)
			}
		}
		slices.Sort(firsts)
		b.ReportMetric(float64(events)/elapsed.Seconds(), "events/s")
		b.ReportMetric(float64(firsts[len(firsts)/2].Microseconds())/1000, "p50-first-event-ms")
		b.ReportMetric(float64(firsts[len(firsts)*99/100].Microseconds())/1000, "p99-first-event-ms")
		b.ReportMetric(0, "lost+repeated")
		b.ReportMetric(float64(events)/float64(benchSessions), "events/session")
		hs.Close()
		backend.Close()
		runtime.GC()
		var closed runtime.MemStats
		runtime.ReadMemStats(&closed)
		b.ReportMetric(float64(int64(open.HeapAlloc)-int64(closed.HeapAlloc))/float64(benchSessions), "heap-B/session")
	}
}

type loadResult struct {
	session string
	ids     []string
	first   time.Duration
	err     error
}

// oneLoadSession creates a session, watches it, prompts it and reads its
// events to agent_end.
func oneLoadSession(c *http.Client, base string) (r loadResult) {
	resp, err := c.Post(base+"/v1/sessions", "application/json", strings.NewReader(`{}`))
	if err != nil {
		return loadResult{err: err}
	}
	var info SessionInfo
	json.NewDecoder(resp.Body).Decode(&info)
	resp.Body.Close()
	r.session = info.ID
	ev, err := c.Get(base + "/v1/sessions/" + info.ID + "/events")
	if err != nil {
		r.err = err
		return r
	}
	defer ev.Body.Close()
	sse := &sseReader{resp: ev, r: bufio.NewReader(ev.Body)}
	t0 := time.Now()
	resp, err = c.Post(base+"/v1/sessions/"+info.ID+"/prompt", "application/json", strings.NewReader(`{"message":"compute"}`))
	if err != nil {
		r.err = err
		return r
	}
	resp.Body.Close()
	if resp.StatusCode != 202 {
		r.err = fmt.Errorf("prompt: %s", resp.Status)
		return r
	}
	for {
		e, err := sse.next()
		if err != nil {
			r.err = err
			return r
		}
		if len(r.ids) == 0 {
			r.first = time.Since(t0)
		}
		r.ids = append(r.ids, e.ID)
		if eventType(e.Data) == "agent_end" {
			return r
		}
	}
}

// oneReplay counts a session's events replayed from its journal.
func oneReplay(c *http.Client, base, id string) int {
	ev, err := c.Get(base + "/v1/sessions/" + id + "/events")
	if err != nil {
		return -1
	}
	defer ev.Body.Close()
	sse := &sseReader{resp: ev, r: bufio.NewReader(ev.Body)}
	for n := 1; ; n++ {
		e, err := sse.next()
		if err != nil {
			return -1
		}
		if eventType(e.Data) == "agent_end" {
			return n
		}
	}
}
