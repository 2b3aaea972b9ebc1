package rpc_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmagent/wasmagent/host/eventwire"
	"github.com/wasmagent/wasmagent/internal/wasmbuild"
)

// rpcScript: a slow tool call (steered during it), the answers to the
// steering and the follow-up, then a tool call long enough to abort.
const rpcScript = `{"turns":[
 {"content":[{"type":"toolCall","id":"s1","name":"sleep","arguments":{"ms":700}}]},
 {"content":"steered"},
 {"content":"followed"},
 {"content":[{"type":"toolCall","id":"s2","name":"sleep","arguments":{"ms":20000}}]}]}`

// nodeDir returns the npm directory of pi's packages, or skips.
func nodeDir(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not installed: pi's own clients cannot be run (CI has Node 20)")
	}
	dir, _ := filepath.Abs("testdata/node")
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@mariozechner", "pi-coding-agent")); err != nil {
		t.Skip("pi-coding-agent is not installed: run `make npm-deps` (npm ci in host/rpc/testdata/node)")
	}
	return dir
}

// build builds wasmagent (wasmbuild.Command: once, shared by every test
// process).
func build(t *testing.T) string {
	t.Helper()
	return wasmbuild.CommandForTest(t, "cmd/wasmagent")
}

// rpcSetup builds wasmagent into a temporary directory and writes a
// configuration with the scripted model and the probe plugin's sleep.
func rpcSetup(t *testing.T) (binary, config string, env []string) {
	t.Helper()
	dir := t.TempDir()
	binary = build(t)
	os.WriteFile(filepath.Join(dir, "script.json"), []byte(rpcScript), 0o644)
	config = filepath.Join(dir, "agent.toml")
	cfg := fmt.Sprintf("[model]\nprovider = \"scripted\"\nscript = \"script.json\"\n[runtime]\ncache_dir = %q\n[sessions]\ndir = %q\n[[tool]]\nplugin = %q\n",
		wasmbuild.TestCacheDir(), filepath.Join(dir, "sessions"), wasmbuild.ForTest(t, "internal/testplugins/probe"))
	os.WriteFile(config, []byte(cfg), 0o644)
	return binary, config, append(os.Environ(), "WASMAGENT_BIN="+binary)
}

// pi-coding-agent's own RpcClient drives `wasmagent rpc`: prompt,
// steering while a tool runs, a follow-up, abort, get_state,
// get_messages, stats, a session name, and a refused command.
func TestPiRpcClient(t *testing.T) {
	// A client in a child process: it waits on the process, beside the
	// others (RATIONALE.md, "Why is make test shaped this way?").
	t.Parallel()
	if testing.Short() {
		t.Skip("builds the binary and a plugin, runs Node")
	}
	node := nodeDir(t)
	_, config, env := rpcSetup(t)
	cmd := exec.Command("node", filepath.Join(node, "rpc_client.mjs"), filepath.Join(node, "shim.mjs"), config)
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "ok") {
		t.Fatalf("%v\n%s", err, out)
	}
}

// confirmScript: two sleep calls, each asked about by the policy hook.
const confirmScript = `{"turns":[
 {"content":[{"type":"toolCall","id":"c1","name":"sleep","arguments":{"ms":1}}]},
 {"content":"confirmed"},
 {"content":[{"type":"toolCall","id":"c2","name":"sleep","arguments":{"ms":1}}]},
 {"content":"declined"}]}`

// pi-coding-agent's own RpcClient answers a hook's question (the policy
// plugin's "ask" rule) sent as pi's extension_ui_request "confirm": once
// confirmed (the call runs), once cancelled (the call is declined).
func TestPiRpcClientConfirm(t *testing.T) {
	// A client in a child process: it waits on the process, beside the
	// others (RATIONALE.md, "Why is make test shaped this way?").
	t.Parallel()
	if testing.Short() {
		t.Skip("builds the binary and two plugins, runs Node")
	}
	node := nodeDir(t)
	dir := t.TempDir()
	binary := build(t)
	os.WriteFile(filepath.Join(dir, "script.json"), []byte(confirmScript), 0o644)
	config := filepath.Join(dir, "agent.toml")
	cfg := fmt.Sprintf(`[model]
provider = "scripted"
script = "script.json"
[runtime]
cache_dir = %q
[sessions]
dir = %q
[[tool]]
plugin = %q
[[hook]]
plugin = %q
[hook.config]
rules = [{ name = "sleepy", action = "ask", tools = ["sleep"], question = "Sleep now?" }]
`, wasmbuild.TestCacheDir(), filepath.Join(dir, "sessions"), wasmbuild.ForTest(t, "internal/testplugins/probe"), wasmbuild.ForTest(t, "plugins/policy"))
	os.WriteFile(config, []byte(cfg), 0o644)
	cmd := exec.Command("node", filepath.Join(node, "rpc_confirm.mjs"), filepath.Join(node, "shim.mjs"), config)
	cmd.Env = append(os.Environ(), "WASMAGENT_BIN="+binary)
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "ok") {
		t.Fatalf("%v\n%s", err, out)
	}
}

// pi-coding-agent's own RpcClient reads an 800 KB answer streamed in 4 KB
// fragments (some 165 MB of updates as pi sends them) within the default
// [events] budget, and still makes the whole answer of the updates'
// messages, their text deltas and message_end.
func TestPiRpcClientBigAnswer(t *testing.T) {
	// A client in a child process: it waits on the process, beside the
	// others (RATIONALE.md, "Why is make test shaped this way?").
	t.Parallel()
	if testing.Short() {
		t.Skip("builds the binary, runs Node, streams 800 KB")
	}
	node := nodeDir(t)
	dir := t.TempDir()
	binary := build(t)
	answer := strings.Repeat("0123456789abcdef", 50_000)
	os.WriteFile(filepath.Join(dir, "script.json"), []byte(fmt.Sprintf(`{"chunkTokens":1024,"turns":[{"content":%q}]}`, answer)), 0o644)
	config := filepath.Join(dir, "agent.toml")
	os.WriteFile(config, []byte("[model]\nprovider = \"scripted\"\nscript = \"script.json\"\n[runtime]\ncache_dir = \"off\"\n"), 0o644)
	cmd := exec.Command("node", filepath.Join(node, "rpc_big.mjs"), filepath.Join(node, "shim.mjs"), config, fmt.Sprint(len(answer)))
	cmd.Env = append(os.Environ(), "WASMAGENT_BIN="+binary)
	out, err := cmd.CombinedOutput()
	var updates, bytes int64
	if _, serr := fmt.Sscanf(string(out), "ok %d updates, %d bytes", &updates, &bytes); err != nil || serr != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	// the bound of docs/events.md, the message taken as its text plus 1 KB
	if m := int64(len(answer) + 1024); bytes > 2*(eventwire.DefaultFloor+eventwire.DefaultRatio*m) {
		t.Fatalf("pi's client read %d bytes of updates for a message of some %d bytes", bytes, m)
	}
	t.Logf("%s", out)
}

// A client in another language, Python's standard library only, does the
// same through plain pipes.
func TestPythonClient(t *testing.T) {
	// A client in a child process: it waits on the process, beside the
	// others (RATIONALE.md, "Why is make test shaped this way?").
	t.Parallel()
	if testing.Short() {
		t.Skip("builds the binary and a plugin, runs Python")
	}
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not installed")
	}
	binary, config, env := rpcSetup(t)
	cmd := exec.Command("python3", "testdata/rpc_client.py", binary, config)
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "ok") {
		t.Fatalf("%v\n%s", err, out)
	}
}
