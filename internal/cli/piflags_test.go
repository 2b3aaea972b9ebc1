package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// pi's habits in pi's shape: --model and --thinking for one command over
// agent.toml's, -c for --continue, --session-dir, --mode json, -p (at the
// root, run; in run, nothing more). Each was answered with advice; now
// what it sets shows where pi's would: the model in the events and the
// session file, the session under the directory given and continued from
// it (what reaches the server: TestPiFlagsReachTheServer, where a real
// provider is linked). A value they refuse says why.
func TestPiFlags(t *testing.T) {
	t.Setenv("WA_PI_FLAGS_KEY", "k")
	cfg := writeTOML(t, "[model]\nprovider = \"openai\"\nname = \"configured\"\nbase_url = \"http://127.0.0.1:1/v1\"\napi_key_env = \"WA_PI_FLAGS_KEY\"\n[runtime]\ncache_dir = \"off\"\n")
	sessions := filepath.Join(t.TempDir(), "sessions")
	for i, args := range [][]string{
		{"run", "--json", "--model", "other-model", "--thinking", "high", "--session-dir", sessions, "--config", cfg, "first"},
		{"-p", "--mode", "json", "-c", "--model", "other-model", "--session-dir", sessions, "--config", cfg, "second"},
	} {
		out, errOut, code := runMain(args...)
		if code != ExitFailed { // the stand-in model fails every request
			t.Fatalf("%q: exit %d\n%s", args, code, errOut)
		}
		models := 0
		for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
			var e struct {
				Type    string `json:"type"`
				Message struct {
					Role  string `json:"role"`
					Model string `json:"model"`
				} `json:"message"`
			}
			if err := json.Unmarshal([]byte(line), &e); err != nil {
				t.Fatalf("%q: not a JSON line: %q", args, line)
			}
			if e.Type == "message_end" && e.Message.Role == "assistant" {
				models++
				if e.Message.Model != "other-model" {
					t.Errorf("%q: the model asked is %q, not --model's", args, e.Message.Model)
				}
			}
		}
		if models != 1 {
			t.Errorf("%q: %d answers in the events", args, models)
		}
		files, _ := filepath.Glob(filepath.Join(sessions, "*", "*.jsonl"))
		if len(files) != 1 {
			t.Fatalf("%q: %d session files under --session-dir, want 1 (the second continues the first): %q", args, len(files), files)
		}
		b, _ := os.ReadFile(files[0])
		if got := strings.Count(string(b), `"role":"user"`); got != i+1 {
			t.Errorf("%q: %d prompts in the session, want %d:\n%s", args, got, i+1, b)
		}
		if got := strings.Count(string(b), `"model":"other-model"`); got != i+1 {
			t.Errorf("%q: the session records --model in %d answers, want %d:\n%s", args, got, i+1, b)
		}
	}
	out, errOut, code := runMain("sessions", "ls", "--session-dir", sessions)
	if code != ExitOK || strings.Count(out, "\n") != 2 {
		t.Errorf("sessions ls --session-dir: exit %d, stdout %q\n%s", code, out, errOut)
	}
	scripted := writeTOML(t, "[model]\nprovider = \"scripted\"\nscript = \"s.json\"\n")
	os.WriteFile(filepath.Join(filepath.Dir(scripted), "s.json"), []byte(`{"turns":[{"content":"hi"}]}`), 0o644)
	// chat -r: the sessions to pick from, as pi's --resume, and how to
	// pick one.
	id := strings.Fields(strings.Split(out, "\n")[1])[0]
	if _, errOut, code := runMain("chat", "-r", "--session-dir", sessions, "--config", scripted); code != ExitOK ||
		!strings.Contains(errOut, id) || !strings.Contains(errOut, "(/resume ID resumes one") {
		t.Errorf("chat -r: exit %d, does not list %s to resume:\n%s", code, id, errOut)
	}
	for _, c := range []struct {
		args []string
		say  string
	}{
		{[]string{"run", "--thinking", "hgih", "--config", cfg, "x"}, `--thinking "hgih": want off, minimal, low, medium, high or xhigh`},
		{[]string{"chat", "--thinking", "max", "--config", cfg}, `--thinking "max": want off`},
		{[]string{"run", "--mode", "rpc", "--config", cfg, "x"}, "wasmagent rpc"},
		{[]string{"run", "--mode", "jsonl", "--config", cfg, "x"}, `--mode "jsonl": want text or json`},
		{[]string{"rpc", "--mode", "json", "--config", cfg}, "wasmagent run --json"},
		{[]string{"run", "--no-session", "--model", "m", "--config", scripted, "x"}, `--model "m": the "scripted" provider of ` + scripted},
	} {
		out, errOut, code := runMain(c.args...)
		if code != ExitUsage || out != "" || !strings.Contains(errOut, c.say) {
			t.Errorf("%q: exit %d, stdout %q; want 2 saying %q:\n%s", c.args, code, out, c.say, errOut)
		}
	}
}
