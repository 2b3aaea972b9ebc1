package rpc_test

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/wasmagent/wasmagent/host/hosttest"
)

// rpcProc is one side of TestRPCMatchesPi: pi-coding-agent or wasmagent
// in RPC mode, talking to its own diffServer.
type rpcProc struct {
	cmd    *exec.Cmd
	in     io.WriteCloser
	lines  chan []byte
	stderr hosttest.Buffer
	srv    *diffServer
	// provider is the name of the provider the side's model is under
	// ("$PROVIDER" in a command stands for it).
	provider string
	// got is every line read, each with the index of the op during
	// which it was read.
	got []gotLine
	// dir is the side's temporary directory (sessions in dir/sessions).
	dir string
	// forks and files are what placeholders resolve to (resolve, learn).
	forks, files []string
	// loose holds the ids of responses compared only for coming
	// (diffOp.Loose).
	loose map[string]bool
	// given are the sequence's own session files for $GIVEN (diffSeq.Given).
	given map[string]string
}

type gotLine struct {
	op    int
	line  []byte
	v     map[string]any
	order hosttest.JSONOrder // of v's objects' keys
}

// startPi starts pi-coding-agent 0.73.1 in RPC mode with nothing of its own
// (no built-in tools, extensions, skills, templates or context files),
// offline, on the model "m" of a provider "mock" that models.json in a
// temporary agent directory points at srv.
func startPi(t testing.TB, node string, srv *diffServer) (*rpcProc, error) {
	dir := t.TempDir()
	agentDir := filepath.Join(dir, "agent")
	os.MkdirAll(agentDir, 0o755)
	// a model that reasons at every level, as wasmagent's does (it
	// passes each level on as the reasoning effort)
	models := fmt.Sprintf(`{"providers":{"mock":{"baseUrl":%q,"apiKey":"none","api":"openai-completions","models":[{"id":"m","reasoning":true,"thinkingLevelMap":{"xhigh":"xhigh"}}]}}}`, srv.srv.URL+"/v1")
	os.WriteFile(filepath.Join(agentDir, "models.json"), []byte(models), 0o644)
	// no retries inside the HTTP client (wasmagent's retries = 0); no
	// thinking until asked (wasmagent's default)
	os.WriteFile(filepath.Join(agentDir, "settings.json"), []byte(`{"retry":{"provider":{"maxRetries":0}},"defaultThinkingLevel":"off"}`), 0o644)
	cli := filepath.Join(node, "node_modules", "@mariozechner", "pi-coding-agent", "dist", "cli.js")
	cmd := exec.Command("node", cli, "--mode", "rpc", "--offline", "--no-tools", "--no-extensions", "--no-skills",
		"--no-prompt-templates", "--no-context-files", "--provider", "mock", "--model", "m",
		"--session-dir", filepath.Join(dir, "sessions"), "--system-prompt", "You are a test.")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "PI_CODING_AGENT_DIR="+agentDir, "PI_OFFLINE=1", "PI_TELEMETRY=0", "HOME="+dir)
	return startProc(t, cmd, srv, "mock", dir)
}

// startOurs starts `wasmagent rpc` on the model "m" of an OpenAI-compatible
// server at srv.
func startOurs(t testing.TB, binary string, srv *diffServer) (*rpcProc, error) {
	dir := t.TempDir()
	config := filepath.Join(dir, "agent.toml")
	cfg := fmt.Sprintf("[model]\nprovider = \"openai\"\nname = \"m\"\nbase_url = %q\nretries = 0\n[agent]\nsystem_prompt = \"You are a test.\"\n[sessions]\ndir = %q\n",
		srv.srv.URL+"/v1", filepath.Join(dir, "sessions"))
	os.WriteFile(config, []byte(cfg), 0o644)
	cmd := exec.Command(binary, "rpc", "--config", config)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "HOME="+dir)
	return startProc(t, cmd, srv, "openai", dir)
}

// startProc starts cmd (from any goroutine: it reports, never fails t).
func startProc(t testing.TB, cmd *exec.Cmd, srv *diffServer, provider, dir string) (*rpcProc, error) {
	p := &rpcProc{cmd: cmd, lines: make(chan []byte, 4096), srv: srv, provider: provider, dir: dir, loose: map[string]bool{}}
	cmd.Stderr = &p.stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("%s: %v", cmd.Path, err)
	}
	p.in = in
	go func() {
		sc := bufio.NewScanner(out)
		sc.Buffer(nil, 64<<20)
		for sc.Scan() {
			p.lines <- bytes.Clone(sc.Bytes())
		}
		close(p.lines)
	}()
	t.Cleanup(p.stop)
	return p, nil
}

// stop closes stdin (both sides end then) and waits, killing a process
// that has not ended in 10 s.
func (p *rpcProc) stop() {
	p.in.Close()
	done := make(chan struct{})
	go func() { p.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		p.cmd.Process.Kill()
		<-done
	}
}

func (p *rpcProc) send(line []byte) error {
	_, err := p.in.Write(append(line, '\n'))
	return err
}

// await reads lines (recording them for op) until each of want has been
// met by a line read during op, or the timeout passes.
func (p *rpcProc) await(op int, timeout time.Duration, want ...func(map[string]any) bool) error {
	met := make([]bool, len(want))
	count := func(v map[string]any) {
		for i, w := range want {
			if !met[i] && w(v) {
				met[i] = true
				return
			}
		}
	}
	all := func() bool {
		for _, m := range met {
			if !m {
				return false
			}
		}
		return true
	}
	deadline := time.After(timeout)
	for !all() {
		select {
		case line, ok := <-p.lines:
			if !ok {
				return fmt.Errorf("the process ended\nstderr: %s", p.stderr.String())
			}
			x, order, err := hosttest.DecodeOrdered(line)
			v, _ := x.(map[string]any)
			if err != nil || v == nil {
				return fmt.Errorf("stdout line is not a JSON object: %q", line)
			}
			p.got = append(p.got, gotLine{op: op, line: line, v: v, order: order})
			count(v)
		case <-deadline:
			return fmt.Errorf("timed out after %s", timeout)
		}
	}
	return nil
}
