package cluster_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/wasmagent/wasmagent/host/cluster"
	"github.com/wasmagent/wasmagent/internal/wasmbuild"
)

// This file runs real "wasmagent serve" hosts as child processes over an
// embedded 3-node JetStream cluster: the binary is built once
// (wasmbuild.Command), each host gets its own agent.toml joining the cluster.

func wasmagentBinary(t *testing.T) string {
	t.Helper()
	return wasmbuild.CommandForTest(t, "cmd/wasmagent")
}

// testCluster is an embedded 3-node JetStream cluster on loopback.
type testCluster struct {
	urls string
	js   jetstream.JetStream
}

func startTestCluster(t *testing.T) *testCluster {
	t.Helper()
	servers, err := cluster.StartLocalCluster(t.TempDir(), 3)
	if err != nil {
		t.Fatal(err)
	}
	var urls []string
	for _, s := range servers {
		t.Cleanup(s.Shutdown)
		urls = append(urls, s.URL())
	}
	nc, err := nats.Connect(strings.Join(urls, ","))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	js, _ := jetstream.New(nc)
	return &testCluster{urls: strings.Join(urls, ","), js: js}
}

// holder returns who holds session id's lease ("" when nobody).
func (c *testCluster) holder(t *testing.T, id string) string {
	kv, err := c.js.KeyValue(context.Background(), "wasmagent_leases")
	if err != nil {
		return ""
	}
	e, err := kv.Get(context.Background(), id)
	if err != nil {
		return ""
	}
	var v struct{ Holder string }
	json.Unmarshal(e.Value(), &v)
	return v.Holder
}

// child is one wasmagent serve process.
type child struct {
	name string
	cmd  *exec.Cmd
	url  string
	mu   sync.Mutex
	log  strings.Builder
	eof  chan struct{} // closed when its stderr is read to the end
}

func (c *child) stderr() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.log.String()
}

// startHost starts wasmagent serve joining c, its model replaying script.
func startHost(t *testing.T, c *testCluster, name, script string) *child {
	t.Helper()
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "script.json"), []byte(script), 0o644)
	cfg := fmt.Sprintf(`[model]
provider = "scripted"
script = "script.json"
[runtime]
cache_dir = %q
[sessions]
dir = "state"
[[tool]]
plugin = %q
[serve]
addr = "127.0.0.1:0"
drain_timeout = "1s"
[cluster]
nats_url = %q
lease_ttl = "2s"
replicas = 3
`, wasmbuild.TestCacheDir(), wasmbuild.ForTest(t, "internal/testplugins/probe"), c.urls)
	os.WriteFile(filepath.Join(dir, "agent.toml"), []byte(cfg), 0o644)
	ch := &child{name: name, cmd: exec.Command(wasmagentBinary(t), "serve", "--config", filepath.Join(dir, "agent.toml")), eof: make(chan struct{})}
	ch.cmd.Dir = dir
	errPipe, _ := ch.cmd.StderrPipe()
	if err := ch.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ch.cmd.Process.Signal(syscall.SIGCONT)
		if t.Failed() {
			// Its goroutines' stacks, in its stderr: what a host that did
			// not do what the test waited for was doing instead.
			ch.cmd.Process.Signal(syscall.SIGQUIT)
			select {
			case <-ch.eof:
			case <-time.After(10 * time.Second):
			}
		}
		ch.cmd.Process.Kill()
		<-ch.eof
		ch.cmd.Wait()
		if t.Failed() {
			t.Logf("%s's stderr:\n%s", name, ch.stderr())
		}
	})
	listening := make(chan string, 1)
	go func() {
		defer close(ch.eof)
		sc := bufio.NewScanner(errPipe)
		for sc.Scan() {
			ch.mu.Lock()
			ch.log.WriteString(sc.Text() + "\n")
			ch.mu.Unlock()
			if u := regexp.MustCompile(`listening on (http://[0-9.:]+)`).FindStringSubmatch(sc.Text()); u != nil {
				listening <- u[1]
			}
		}
	}()
	select {
	case ch.url = <-listening:
	case <-time.After(60 * time.Second):
		t.Fatalf("%s did not start:\n%s", name, ch.stderr())
	}
	return ch
}

func (c *child) pidIn(holder string) bool {
	return strings.HasSuffix(holder, fmt.Sprintf(" pid %d", c.cmd.Process.Pid))
}

func (c *child) call(t *testing.T, method, path, body string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(method, c.url+path, strings.NewReader(body))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s: %v", c.name, err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(data)
}

// sseClient reads one host's event stream of a session in the background.
type sseClient struct {
	mu     sync.Mutex
	events []sseEvent
	done   chan struct{}
}

type sseEvent struct{ ID, Data string }

func (s *sseClient) snapshot() []sseEvent {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]sseEvent(nil), s.events...)
}

// watch reads c's events of session id from after on until an event
// satisfies stop, the connection ends, or ctx is done.
func watch(ctx context.Context, c *child, id, after string, stop func(sseEvent) bool) *sseClient {
	s := &sseClient{done: make(chan struct{})}
	go func() {
		defer close(s.done)
		req, _ := http.NewRequestWithContext(ctx, "GET", c.url+"/v1/sessions/"+id+"/events", nil)
		if after != "" {
			req.Header.Set("Last-Event-ID", after)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return
		}
		defer resp.Body.Close()
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(nil, 16<<20)
		var cur sseEvent
		for sc.Scan() {
			line := sc.Text()
			switch {
			case strings.HasPrefix(line, "id: "):
				cur.ID = line[4:]
			case strings.HasPrefix(line, "data: "):
				cur.Data = line[6:]
			case line == "" && cur.Data != "":
				s.mu.Lock()
				s.events = append(s.events, cur)
				s.mu.Unlock()
				if stop(cur) {
					return
				}
				cur = sseEvent{}
			}
		}
	}()
	return s
}

func typeOf(data string) string {
	var v struct{ Type string }
	json.Unmarshal([]byte(data), &v)
	return v.Type
}

func isType(typ string) func(sseEvent) bool {
	return func(e sseEvent) bool { return typeOf(e.Data) == typ }
}

// waitFor polls cond every 20ms until it holds or d passes.
func waitFor(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(d); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if cond() {
			return
		}
	}
	t.Fatalf("timed out waiting for %s", what)
}

// hostScript is host i's script: one slow call with an id of its own,
// then an answer naming the host, so the transcript says who ran what.
func hostScript(i int, sleepMs int) string {
	return fmt.Sprintf(`{"turns":[{"content":[{"type":"toolCall","id":"h%d-call","name":"sleep","arguments":{"ms":%d}}]},{"content":"finished on host %d"}]}`, i, sleepMs, i)
}
