package main_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/wasmagent/wasmagent/internal/cli"
	"github.com/wasmagent/wasmagent/internal/wasmbuild"
)

// Whatever the model streams and a plugin answers, run --json writes only
// event lines on stdout, each one JSON object with a type: text and
// reasoning with control characters, escape sequences, NUL, U+2028 and
// bytes that are not UTF-8; calls of tools that do not exist, with no
// name, with arguments that are not JSON or not an object, cut off; any
// finish reason or none; lines that are no event; and a tool whose
// results are JSON of every shape, or not JSON. Generated cases
// (WASMAGENT_JSONLINES_N, default 24), each a model server and a plugin.
func TestRunJSONLinesWhateverIsSent(t *testing.T) {
	n := 24
	if v := os.Getenv("WASMAGENT_JSONLINES_N"); v != "" {
		n, _ = strconv.Atoi(v)
	}
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 1))
	texts := []string{"plain", "\x1b[2J\x1b]52;c;aGk=\x07", "\x00", "\u2028\u2029", "\xff\xfe", "\xe6\x97", "<&>", `"\`, "\r\n", "\u202e", "日本", strings.Repeat("x", 3000)}
	args := []string{`{"a":`, `1`, `}`, `]`, `"x`, `\u0000`, `not json`, `{}`, `[1]`, `null`, `"\ud800"`, "\xff"}
	names := []string{"t", "t", "nope", "", "<&>", "\x1b[31m"}
	finishes := []string{"stop", "tool_calls", "length", "content_filter", "weird", ""}
	results := []string{
		`{"content":[{"type":"text","text":"ok"}]}`,
		`{"content":[{"type":"text","text":"\u001b[31m\u0000\u2028"}],"details":{"x":[1,{"y":null}]}}`,
		`{"content":[{"type":"image","data":"aGk=","mimeType":"image/png"}]}`,
		`{"content":"not a list"}`, `not json`, "\xff\xfe", `{"isError":true}`, `[]`, `null`, `{}`,
	}
	pick := func(s []string) string { return s[rng.IntN(len(s))] }
	for i := range n {
		var body strings.Builder
		event := func(delta string, finish string) {
			f := "null"
			if finish != "" {
				f = strconv.Quote(finish)
			}
			fmt.Fprintf(&body, "data: {\"choices\":[{\"index\":0,\"delta\":{%s},\"finish_reason\":%s}]}\n\n", delta, f)
		}
		calls := 0
		for range 1 + rng.IntN(8) {
			switch rng.IntN(6) {
			case 0:
				event(`"content":`+rawJSONString(pick(texts)), "")
			case 1:
				event(`"reasoning_content":`+rawJSONString(pick(texts)), "")
			case 2:
				event(fmt.Sprintf(`"tool_calls":[{"index":%d,"id":"c%d","type":"function","function":{"name":%s,"arguments":""}}]`, calls, calls, rawJSONString(pick(names))), "")
				calls++
			case 3:
				event(fmt.Sprintf(`"tool_calls":[{"index":%d,"function":{"arguments":%s}}]`, rng.IntN(calls+1), rawJSONString(pick(args))), "")
			case 4:
				body.WriteString(pick([]string{"data: nope\n\n", ": a comment\n\n", "event: x\n\n", "data: {}\n\n"}))
			case 5:
				event(`"content":`+rawJSONString(pick(texts)), pick(finishes))
			}
		}
		if f := pick(finishes); f != "" {
			event("", f)
			body.WriteString("data: [DONE]\n\n")
		}
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			w.Write([]byte(body.String()))
		}))
		dir := t.TempDir()
		plugin := filepath.Join(dir, "t.wasm")
		os.WriteFile(plugin, wasmbuild.ConstPlugin(map[string]string{
			"describe": `{"abi":1,"name":"p","tools":[{"name":"t","description":"d","parameters":{"type":"object"}}]}`,
			"execute":  pick(results),
		}), 0o644)
		cfg := filepath.Join(dir, "agent.toml")
		os.WriteFile(cfg, []byte(fmt.Sprintf("[model]\nprovider = \"openai\"\nname = \"m\"\nbase_url = %q\nretries = 0\n[agent]\nmax_turns = 3\n[runtime]\ncache_dir = \"off\"\n[[tool]]\nplugin = %q\npool = 0\n", srv.URL+"/v1", plugin)), 0o644)
		var out, errOut lockedBuffer
		code := cli.Main(context.Background(), []string{"run", "--json", "--no-session", "--config", cfg, "go"}, cli.Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errOut})
		srv.Close()
		if code != cli.ExitOK && code != cli.ExitFailed {
			t.Errorf("case %d: exit %d\n%s", i, code, errOut.String())
		}
		lines := strings.Split(out.String(), "\n")
		if lines[len(lines)-1] != "" {
			t.Errorf("case %d: stdout does not end with a newline: %q", i, lines[len(lines)-1])
		}
		for _, l := range lines[:len(lines)-1] {
			var e struct {
				Type string `json:"type"`
			}
			if err := json.Unmarshal([]byte(l), &e); err != nil || e.Type == "" {
				t.Errorf("case %d: a stdout line that is no event (%v): %q\nthe model sent:\n%q", i, err, l, body.String())
				break
			}
		}
	}
}

// rawJSONString is s as a JSON string whose bytes that are not UTF-8 are
// left as they are, as a careless server would write them (json.Marshal
// would replace them).
func rawJSONString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c < 0x20:
			fmt.Fprintf(&b, `\u%04x`, c)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}
