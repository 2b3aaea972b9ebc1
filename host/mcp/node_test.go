package mcp_test

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wasmagent/wasmagent/host/mcp"
	"github.com/wasmagent/wasmagent/internal/wasmbuild"
)

// nodeClient runs testdata/node/client.mjs (the official TypeScript SDK
// client) and decodes what it saw.
func nodeClient(t *testing.T, env []string, args ...string) map[string]any {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed: the TypeScript SDK client tests skip")
	}
	dir, _ := filepath.Abs("testdata/node")
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@modelcontextprotocol", "sdk")); err != nil {
		t.Skip("the TypeScript SDK is not installed: run make npm-deps")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, append([]string{filepath.Join(dir, "client.mjs")}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node client: %v\nstdout: %s\nstderr: %s", err, out, stderr.String())
	}
	var got map[string]any
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("node client printed %q: %v\nstderr: %s", out, err, stderr.String())
	}
	return got
}

// checkScenario asserts what client.mjs saw: the same as the Go tests,
// from a client written by others.
func checkScenario(t *testing.T, got map[string]any, audit string) {
	t.Helper()
	js := func(v any) string { b, _ := json.Marshal(v); return string(b) }
	tools := got["tools"].(map[string]any)
	if tools["say"] == nil || tools["echo"] != nil || !strings.Contains(js(tools["say"]), `"readOnlyHint":true`) || !strings.Contains(js(tools["write"]), `"destructiveHint":true`) {
		t.Errorf("tools = %s", js(tools))
	}
	if c := js(got["concurrent"]); !strings.Contains(c, "slept 20 ms") || !strings.Contains(c, "wrote 5 bytes") || !strings.Contains(c, "[false,false]") {
		t.Errorf("concurrent = %s", c)
	}
	// Every update reaches the client's transport, in order, before the
	// result; the SDK's own callback sees an in-order prefix of them (see
	// client.mjs).
	pr := got["progress"].(map[string]any)
	if w := js(pr["wire"]); w != `["step 1","step 2","step 3"]` || !strings.HasPrefix(w, strings.TrimSuffix(js(pr["messages"]), "]")) {
		t.Errorf("progress = %s", js(pr))
	}
	if got["cancel"] != "aborted" {
		t.Errorf("cancel = %v", got["cancel"])
	}
	if b := js(got["blocked"]); !strings.Contains(b, "probe hook failed on say") || !strings.Contains(b, `"isError":true`) {
		t.Errorf("blocked = %s", b)
	}
	if r := js(got["redacted"]); strings.Contains(r, "AKIAIOSFODNN7EXAMPLE") || !strings.Contains(r, "[REDACTED:") {
		t.Errorf("redacted = %s", r)
	}
	if u := js(got["unknown"]); !strings.Contains(u, "nope") {
		t.Errorf("unknown = %s", u)
	}
	if a, _ := got["after"].(string); !strings.HasPrefix(a, "after") {
		t.Errorf("after = %q", a)
	}
	waitFor(t, "the aborted spin's audit record", func() bool {
		b, _ := os.ReadFile(audit)
		return strings.Contains(string(b), `"tool":"spin"`)
	})
}

// binary builds wasmagent (wasmbuild.Command: once, shared by every test
// process).
func binary(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not installed: the Node client tests skip")
	}
	return wasmbuild.CommandForTest(t, "cmd/wasmagent")
}

// The TypeScript SDK client over stdio, spawning the real binary.
func TestNodeClientStdio(t *testing.T) {
	// A client in a child process: it waits on the process, beside the
	// others (RATIONALE.md, "Why is make test shaped this way?").
	t.Parallel()
	w := writeConfig(t, "")
	got := nodeClient(t, nil, "stdio", binary(t), "mcp", "--config", w.config)
	checkScenario(t, got, w.audit)
}

// inspector runs @modelcontextprotocol/inspector-cli's --cli mode. It runs
// from its build directory: 1.0.3 looks for its package.json relative to
// the working directory.
func inspector(t *testing.T, args ...string) string {
	t.Helper()
	dir, _ := filepath.Abs("testdata/node/node_modules/@modelcontextprotocol/inspector-cli/build")
	if _, err := os.Stat(filepath.Join(dir, "index.js")); err != nil {
		t.Skip("the inspector CLI is not installed: run make npm-deps")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", append([]string{"index.js"}, args...)...)
	cmd.Dir = dir
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("inspector %v: %v\n%s\n%s", args, err, out, stderr.String())
	}
	return string(out)
}

// The MCP inspector's CLI lists and calls a tool, on stdio (spawning the
// real binary) and over HTTP with the token.
func TestInspectorCLI(t *testing.T) {
	// A client in a child process: it waits on the process, beside the
	// others (RATIONALE.md, "Why is make test shaped this way?").
	t.Parallel()
	w := wire(t, "")
	bin := binary(t)
	list := inspector(t, bin, "--method", "tools/list", "--", "mcp", "--config", w.config)
	if !strings.Contains(list, `"name": "say"`) || !strings.Contains(list, `"readOnlyHint": true`) {
		t.Fatalf("tools/list:\n%s", list)
	}
	called := inspector(t, bin, "--method", "tools/call", "--tool-name", "say", "--tool-arg", "text=key AKIAIOSFODNN7EXAMPLE", "--", "mcp", "--config", w.config)
	if !strings.Contains(called, "[REDACTED:") || strings.Contains(called, "AKIAIOSFODNN7EXAMPLE") {
		t.Fatalf("tools/call:\n%s", called)
	}
	ts := httptest.NewServer(w.server(t).Handler(mcp.HTTPOptions{Token: token}))
	defer ts.Close()
	called = inspector(t, ts.URL+"/mcp", "--transport", "http", "--header", "Authorization: Bearer "+token, "--method", "tools/call", "--tool-name", "say", "--tool-arg", "text=over http")
	if !strings.Contains(called, "over http (seen by probe)") {
		t.Fatalf("tools/call over HTTP:\n%s", called)
	}
}

// The TypeScript SDK client over streamable HTTP, with a bearer token.
func TestNodeClientHTTP(t *testing.T) {
	// A client in a child process: it waits on the process, beside the
	// others (RATIONALE.md, "Why is make test shaped this way?").
	t.Parallel()
	w := wire(t, "")
	ts := httptest.NewServer(w.server(t).Handler(mcp.HTTPOptions{Token: token}))
	defer ts.Close()
	got := nodeClient(t, []string{"MCP_TOKEN=" + token}, "http", ts.URL+"/mcp")
	checkScenario(t, got, w.audit)
}
