package cluster

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wasmagent/wasmagent/host"
	"github.com/wasmagent/wasmagent/host/config"
	"github.com/wasmagent/wasmagent/host/serve"
	"github.com/wasmagent/wasmagent/host/session"
)

// benchConcurrent is how many sessions the cluster bench runs at once
// (BENCH_CLUSTER_SESSIONS overrides it).
var benchConcurrent = 24

func init() {
	if n, err := strconv.Atoi(os.Getenv("BENCH_CLUSTER_SESSIONS")); err == nil && n > 0 {
		benchConcurrent = n
	}
}

// benchSetup wires agent.toml as serve would: the scripted model (each
// turn a call of the calc plugin; max_turns 1, so a run is one model turn
// and one Wasm tool call) and the calc plugin. It skips without the
// plugin (make plugins).
func benchSetup(b *testing.B, turns int) (*config.Setup, session.Options) {
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
			`{"content":[{"type":"toolCall","id":"call_%d","name":"calc","arguments":{"expression":"%d*7+1"}}]}`, i, i)))
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
	info := host.ModelInfo{Provider: "scripted", ID: "scripted"}
	if d, ok := s.Model.(host.ModelDescriber); ok {
		info = d.ModelInfo()
	}
	return s, session.Options{Agent: s.Options, Models: []session.Model{{Info: info, Model: s.Model}}}
}

// BenchmarkClusterSessions runs sessions through 1, 2 and 3 hosts (each
// a Service with its own connection to one JetStream server on loopback,
// behind serve's HTTP API): benchConcurrent at a time, each created,
// watched over SSE and prompted on one host, to its agent_end. It
// reports sessions per second and, for 2 and 3 hosts, the ratio to one
// host measured in the same run. The hosts share this machine's CPUs.
func BenchmarkClusterSessions(b *testing.B) {
	var one float64
	for _, n := range []int{1, 2, 3} {
		b.Run(fmt.Sprintf("hosts-%d", n), func(b *testing.B) {
			_, opts := benchSetup(b, benchConcurrent*(b.N+1))
			url := startNATS(b)
			urls := make([]string, n)
			for i := range n {
				svc, err := NewService(context.Background(), urlConn(b, url), ServiceOptions{Session: opts, Slots: 8})
				if err != nil {
					b.Fatal(err)
				}
				b.Cleanup(func() { svc.Close() })
				srv, _ := serve.New(serve.Options{Backend: svc})
				hs := httptest.NewServer(srv.Handler())
				b.Cleanup(hs.Close)
				urls[i] = hs.URL
			}
			client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4 * benchConcurrent}}
			b.ResetTimer()
			start := time.Now()
			for range b.N {
				var wg sync.WaitGroup
				errs := make([]error, benchConcurrent)
				for k := range benchConcurrent {
					wg.Add(1)
					go func() {
						defer wg.Done()
						errs[k] = benchSession(client, urls[k%n])
					}()
				}
				wg.Wait()
				for _, err := range errs {
					if err != nil {
						b.Fatal(err)
					}
				}
			}
			rate := float64(b.N*benchConcurrent) / time.Since(start).Seconds()
			b.ReportMetric(rate, "sessions/s")
			if n == 1 {
				one = rate
			} else if one > 0 {
				b.ReportMetric(rate/one, "x-1host")
			}
		})
	}
}

// benchSession creates a session on the host at base, watches its
// events, prompts it, and returns at its agent_end.
func benchSession(client *http.Client, base string) error {
	resp, err := client.Post(base+"/v1/sessions", "application/json", strings.NewReader(`{}`))
	if err != nil {
		return err
	}
	var info serve.SessionInfo
	json.NewDecoder(resp.Body).Decode(&info)
	resp.Body.Close()
	if resp.StatusCode != 201 {
		return fmt.Errorf("create: %d", resp.StatusCode)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", base+"/v1/sessions/"+info.ID+"/events", nil)
	ev, err := client.Do(req)
	if err != nil {
		return err
	}

	defer ev.Body.Close()
	resp, err = client.Post(base+"/v1/sessions/"+info.ID+"/prompt", "application/json", strings.NewReader(`{"message":"compute"}`))
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode != 202 {
		return fmt.Errorf("prompt: %d", resp.StatusCode)
	}
	sc := bufio.NewScanner(ev.Body)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), `data: {"type":"agent_end"`) {
			return nil
		}
	}
	return fmt.Errorf("session %s: events ended before agent_end: %v", info.ID, sc.Err())
}

// BenchmarkClusterStore is one run (a prompt, one model turn, one calc
// call, its result: three messages appended) on a session kept by the
// file store and by the JetStream store (an embedded server, in process,
// one replica), and reports the JetStream one's time as a multiple of
// the file store's, measured in the same run.
func BenchmarkClusterStore(b *testing.B) {
	var file float64
	for _, kind := range []string{"file", "jetstream"} {
		b.Run(kind, func(b *testing.B) {
			_, opts := benchSetup(b, b.N+1)
			switch kind {
			case "file":
				opts.Store = &session.FileStore{Dir: b.TempDir()}
			default:
				srv, err := StartServer(ServerConfig{Dir: b.TempDir()})
				if err != nil {
					b.Fatal(err)
				}
				b.Cleanup(srv.Shutdown)
				c, err := srv.Connect("bench")
				if err != nil {
					b.Fatal(err)
				}
				b.Cleanup(c.Close)
				st, err := NewStore(context.Background(), c, StoreConfig{})
				if err != nil {
					b.Fatal(err)
				}
				opts.Store = st
			}
			b.ResetTimer()
			start := time.Now()
			for range b.N {
				s := session.New(opts)
				if err := s.Prompt(context.Background(), &host.UserMessage{Content: host.Text("compute")}, session.Reject); err != nil {
					b.Fatal(err)
				}
				if err := s.Wait(context.Background()); err != nil {
					b.Fatal(err)
				}
				s.Close()
			}
			per := float64(time.Since(start).Microseconds()) / float64(b.N)
			if kind == "file" {
				file = per
			} else if file > 0 {
				b.ReportMetric(per/file, "x-filestore")
			}
		})
	}
}
