package mcp_test

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wasmagent/wasmagent/host"
	"github.com/wasmagent/wasmagent/host/config"
	"github.com/wasmagent/wasmagent/host/mcp"
	"github.com/wasmagent/wasmagent/internal/configtest"
	"github.com/wasmagent/wasmagent/internal/rtshare"
	"github.com/wasmagent/wasmagent/internal/wasmbuild"
)

// wired is a real configuration wired: the probe plugin's tools (echo
// renamed to say), probe's hooks as "policy", then the redact plugin, and
// an audit log.
type wired struct {
	setup  *config.Setup // nil from writeConfig
	audit  string
	config string
}

// wire wires it on the runtime the tests of this process share
// (internal/rtshare): the plugins are compiled once, not once per test.
func wire(t *testing.T, extra string) *wired {
	t.Helper()
	w := writeConfig(t, extra)
	f, err := config.LoadTools(w.config)
	if err != nil {
		t.Fatal(err)
	}
	configtest.NoPools(f)
	s, err := f.Wire(rtshare.Share(context.Background()), config.WireOptions{NoModel: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	w.setup = s
	return w
}

// writeConfig writes wire's configuration without wiring it, for a test
// whose server is a child process: wiring it here too would load its
// plugins for nothing (3.5 s of CPU under the race detector).
func writeConfig(t *testing.T, extra string) *wired {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and runs plugins in the host")
	}
	dir := t.TempDir()
	probe := wasmbuild.ForTest(t, "internal/testplugins/probe")
	redact := wasmbuild.ForTest(t, "plugins/redact")
	// No [model]: serving tools needs none (config.LoadTools).
	toml := fmt.Sprintf(`[runtime]
cache_dir = %q
[[tool]]
plugin = %q
rename = { echo = "say" }
[tool.grants]
dirs = [{ host = %q, guest = "/work", write = true }]
[[hook]]
plugin = %q
name = "policy"
[[hook]]
plugin = %q
[audit]
path = "audit.jsonl"
%s`, wasmbuild.TestCacheDir(), probe, dir, probe, redact, extra)
	path := filepath.Join(dir, "agent.toml")
	os.WriteFile(path, []byte(toml), 0o644)
	return &wired{audit: filepath.Join(dir, "audit.jsonl"), config: path}
}

// server serves the wired configuration as "wasmagent mcp" does.
func (w *wired) server(t *testing.T) *mcp.Server {
	o := w.setup.Options
	srv, err := mcp.New(mcp.Options{
		Runner: &host.ToolRunner{Tools: o.Tools, BeforeToolCall: o.BeforeToolCall, AfterToolCall: o.AfterToolCall, OnHook: o.OnHook},
		Audit:  w.setup.Audit(),
	})
	if err != nil {
		t.Fatal(err)
	}
	return srv
}

// connect serves srv on a pair of pipes (the stdio transport) and
// connects the official Go SDK's client to it.
func connect(t testing.TB, srv *mcp.Server, opts *sdk.ClientOptions) *sdk.ClientSession {
	t.Helper()
	cr, sw := io.Pipe() // server → client
	sr, cw := io.Pipe() // client → server
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- srv.ServeStdio(ctx, sr, sw, 0)
		sw.Close()
	}()
	c := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, opts)
	cs, err := c.Connect(ctx, &sdk.IOTransport{Reader: cr, Writer: cw}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cs.Close()
		cw.Close()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("ServeStdio: %v", err)
			}
		case <-time.After(20 * time.Second):
			t.Error("ServeStdio did not return after its input closed")
		}
		cancel()
	})
	return cs
}

func call(t *testing.T, cs *sdk.ClientSession, name string, args any) *sdk.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("call %s: %v", name, err)
	}
	return res
}

func text(r *sdk.CallToolResult) string {
	s := ""
	for _, c := range r.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			s += tc.Text
		}
	}
	return s
}

// waitFor polls until cond holds (for records written after a reply).
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("never: %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
