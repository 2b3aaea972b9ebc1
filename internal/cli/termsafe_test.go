package cli_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/wasmagent/wasmagent/internal/cli"
	"github.com/wasmagent/wasmagent/internal/wasmbuild"
)

// hostile is a random mix of ordinary words and what a terminal acts on:
// CSI sequences (colours, cursor moves, clear screen), OSC (title, OSC 8
// links, OSC 52 clipboard writes) ended by BEL or ST, DCS, C1 controls,
// bidi overrides and isolates, lone CRs, backspaces and other C0
// controls. mark is put in it as an ordinary word: what a terminal shows
// must still hold it.
func hostile(rng *rand.Rand, mark string) string {
	pieces := []func() string{
		func() string {
			return []string{"hello", "world", "rm", "-rf", "ok", "日本語", "ünïcödé", " "}[rng.IntN(8)]
		},
		func() string {
			return fmt.Sprintf("\x1b[%d;%d%c", rng.IntN(100), rng.IntN(100), "HJKmABCDsuf"[rng.IntN(11)])
		},
		func() string { return "\x1b[2J\x1b[H" },
		func() string {
			body := []string{"0;owned title", "8;;https://evil.example/\x1b\\click\x1b]8;;", "52;c;ZXZpbA=="}[rng.IntN(3)]
			return "\x1b]" + body + []string{"\a", "\x1b\\"}[rng.IntN(2)]
		},
		func() string { return "\x1bP+q544e\x1b\\" },
		func() string { return string(rune(0x80 + rng.IntN(0x20))) },
		func() string {
			return string(rune([]int{0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069}[rng.IntN(9)]))
		},
		func() string {
			return []string{"\r", "\b\b\b", "\a", "\x00", "\x7f", "\x1b", "\x9b31m", "\n"}[rng.IntN(8)]
		},
	}
	var b strings.Builder
	at := rng.IntN(6)
	for i := range 6 {
		if i == at {
			b.WriteString(" " + mark + " ")
		}
		b.WriteString(pieces[rng.IntN(len(pieces))]())
	}
	return b.String()
}

// ownSequences are the only control sequences the command itself writes
// on a terminal's stderr (the live line's redraw, the faint style).
var ownSequences = strings.NewReplacer("\r\033[2K", "", "\033[2m", "", "\033[22m", "")

// checkTerminal fails if what a terminal received holds anything a
// terminal acts on (but the command's own sequences) or does not show
// every mark.
func checkTerminal(t *testing.T, what string, shown []byte, marks ...string) {
	t.Helper()
	s := ownSequences.Replace(string(shown))
	if !utf8.ValidString(s) {
		t.Fatalf("%s: not UTF-8:\n%q", what, s)
	}
	for i, r := range s {
		if r == 0x1b || r == '\a' || r == '\r' || r == '\b' || r < 0x20 && r != '\n' && r != '\t' || r >= 0x7f && r < 0xa0 ||
			r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069 {
			t.Fatalf("%s: %U reaches the terminal at %d:\n%q", what, r, i, s)
		}
	}
	for _, m := range marks {
		if !strings.Contains(s, m) {
			t.Fatalf("%s: %q is not shown:\n%q", what, m, s)
		}
	}
}

// terminalCLI runs the command as if stdout and stderr were terminals.
func terminalCLI(args ...string) (stdout, stderr []byte, code int) {
	var o, e bytes.Buffer
	code = cli.Main(context.Background(), args, cli.Env{Stdin: strings.NewReader(""), Stdout: &o, Stderr: &e, Terminal: true, StdoutTerminal: true})
	return o.Bytes(), e.Bytes(), code
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// tomlString quotes s as a TOML basic string, every control as \uXXXX.
func tomlString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		if r < 0x20 || r == 0x7f || r >= 0x80 && r < 0xa0 || r == '"' || r == '\\' {
			fmt.Fprintf(&b, `\u%04X`, r)
		} else {
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// Whatever a model, a plugin, a session file or agent.toml holds, run,
// sessions, plugin call and config validate show it on a terminal with
// nothing a terminal acts on, and still show it: the model's text and
// reasoning, a tool call's name and arguments, a tool's result and
// error, the model's error, the prompt in sessions ls/show/export, the
// result of plugin call (JSON, its values kept), a key and a value of
// agent.toml.
func TestHostileTextNeverReachesTheTerminal(t *testing.T) {
	probe := wasmbuild.ForTest(t, "internal/testplugins/probe")
	for seed := range uint64(3) {
		rng := rand.New(rand.NewPCG(seed, 0x7e5a))
		h := func(mark string) string { return hostile(rng, fmt.Sprintf("%s%d", mark, seed)) }
		dir := t.TempDir()
		t.Chdir(dir)
		prompt, text, thought, args, echo, fail, name, errMsg := h("prompt"), h("said"), h("thought"), h("args"), h("echoed"), h("failed"), h("badtool"), h("modelerr")
		script := fmt.Sprintf(`{"chunkTokens":1,"turns":[
			{"content":[{"type":"thinking","thinking":%s},{"type":"text","text":%s},
				{"type":"toolCall","id":"c1","name":"echo","arguments":{"text":%s}},
				{"type":"toolCall","id":"c2","name":"fail","arguments":{"message":%s}},
				{"type":"toolCall","id":"c3","name":%s,"arguments":{"x":%s}}]},
			{"content":[],"stopReason":"error","errorMessage":%s}]}`,
			jsonString(thought), jsonString(text), jsonString(echo), jsonString(fail), jsonString(name), jsonString(args), jsonString(errMsg))
		os.WriteFile(filepath.Join(dir, "script.json"), []byte(script), 0o644)
		os.WriteFile(filepath.Join(dir, "probe.wasm"), mustRead(t, probe), 0o644)
		cfg := filepath.Join(dir, "agent.toml")
		os.WriteFile(cfg, []byte("[model]\nprovider = \"scripted\"\nscript = \"script.json\"\n[sessions]\ndir = \"sessions\"\n[[tool]]\nplugin = \"probe.wasm\"\n"), 0o644)

		out, errOut, code := terminalCLI("run", "--config", cfg, prompt)
		if code != cli.ExitFailed {
			t.Fatalf("run: exit %d\n%q", code, errOut)
		}
		checkTerminal(t, "run stdout", out, "said"+fmt.Sprint(seed))
		checkTerminal(t, "run stderr", errOut, "echoed"+fmt.Sprint(seed), "failed"+fmt.Sprint(seed), "badtool"+fmt.Sprint(seed), "modelerr"+fmt.Sprint(seed))

		files, _ := filepath.Glob(filepath.Join(dir, "sessions", "*", "*.jsonl"))
		if len(files) != 1 {
			t.Fatalf("sessions: %v", files)
		}
		out, errOut, _ = terminalCLI("sessions", "ls", "--config", cfg)
		checkTerminal(t, "sessions ls", append(out, errOut...), "prompt"+fmt.Sprint(seed))
		out, errOut, _ = terminalCLI("sessions", "show", "--config", cfg, files[0])
		checkTerminal(t, "sessions show", append(out, errOut...), "prompt"+fmt.Sprint(seed), "said"+fmt.Sprint(seed), "echoed"+fmt.Sprint(seed))
		out, errOut, _ = terminalCLI("sessions", "export", "--format", "jsonl", "--config", cfg, files[0])
		checkTerminal(t, "sessions export --format jsonl", append(out, errOut...), "prompt"+fmt.Sprint(seed))
		sameJSONLines(t, out, mustRead(t, files[0]))

		key, value := h("key"), h("value")
		bad := filepath.Join(dir, "bad.toml")
		os.WriteFile(bad, []byte(fmt.Sprintf("[model]\nprovider = %s\n%s = 1\n", tomlString(value), tomlString(key))), 0o644)
		out, errOut, code = terminalCLI("config", "validate", bad)
		if code == cli.ExitOK {
			t.Fatalf("config validate accepts %q", key)
		}
		checkTerminal(t, "config validate", append(out, errOut...), "key"+fmt.Sprint(seed))

		if seed > 0 {
			continue // the plugin's own paths once: loading it is the test's dearest part
		}
		out, errOut, code = terminalCLI("plugin", "call", filepath.Join(dir, "probe.wasm"), "echo", fmt.Sprintf(`{"text":%s}`, jsonString(echo)))
		checkTerminal(t, "plugin call", append(out, errOut...), "echoed"+fmt.Sprint(seed))
		var res struct {
			Content []struct{ Text string } `json:"content"`
		}
		if code != cli.ExitOK || json.Unmarshal(out, &res) != nil || len(res.Content) != 1 || res.Content[0].Text != echo {
			t.Fatalf("plugin call: exit %d; the JSON on a terminal does not hold the text as it is:\n%s", code, out)
		}
		// Piped, the JSON is as the encoder wrote it: C1 and bidi runes as
		// they are.
		piped, _, _ := runCLI(t, "plugin", "call", filepath.Join(dir, "probe.wasm"), "echo", fmt.Sprintf(`{"text":%s}`, jsonString(echo)))
		for _, r := range echo {
			if r >= 0x80 && r < 0xa0 || r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069 {
				if !strings.ContainsRune(piped, r) {
					t.Fatalf("plugin call | …: %U is not in the JSON as it is:\n%q", r, piped)
				}
			}
		}
		_, errOut, _ = terminalCLI("plugin", "call", filepath.Join(dir, "probe.wasm"), "fail", fmt.Sprintf(`{"message":%s}`, jsonString(fail)))
		checkTerminal(t, "plugin call's error", errOut, "failed"+fmt.Sprint(seed))
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// sameJSONLines fails unless a and b are the same JSON values, line by
// line.
func sameJSONLines(t *testing.T, a, b []byte) {
	t.Helper()
	la, lb := strings.Split(strings.TrimSpace(string(a)), "\n"), strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(la) != len(lb) {
		t.Fatalf("%d lines, want %d", len(la), len(lb))
	}
	for i := range la {
		var va, vb any
		if err := json.Unmarshal([]byte(la[i]), &va); err != nil {
			t.Fatalf("line %d: %v\n%s", i+1, err, la[i])
		}
		json.Unmarshal([]byte(lb[i]), &vb)
		if fmt.Sprint(va) != fmt.Sprint(vb) {
			t.Fatalf("line %d differs:\n%s\n%s", i+1, la[i], lb[i])
		}
	}
}
