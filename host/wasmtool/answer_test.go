package wasmtool_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmagent/wasmagent/host"
	"github.com/wasmagent/wasmagent/host/hosttest"
	"github.com/wasmagent/wasmagent/host/scripted"
	"github.com/wasmagent/wasmagent/host/wasmtool"
	"github.com/wasmagent/wasmagent/runtime"
)

// hookCase is one hook answer to compare: the hook and its output.
type hookCase struct {
	Hook   string `json:"hook"` // before, after
	Answer string `json:"answer"`
}

// answerValues are the values a field of an answer takes: its own kind,
// null, and every other JSON kind, falsy and truthy.
var answerValues = []string{`true`, `false`, `null`, `1`, `0`, `""`, `"yes"`, `{}`, `[]`, `{"a":1}`, `-2.5`}

// generateHookCase is the answer of seed: mostly an object of some of
// the hook's fields (each of any kind), members pi does not read (some
// named like a field misspelt, which must stay a warning), a name given
// twice; now and then a value that is no object.
func generateHookCase(seed uint64) hookCase {
	r := rand.New(rand.NewPCG(seed, 0xa45))
	g := hosttest.Given{R: r}
	c := hookCase{Hook: []string{"before", "after"}[r.IntN(2)]}
	if r.IntN(8) == 0 {
		c.Answer = g.Pick([]string{`null`, `false`, `0`, `""`, `true`, `1`, `"s"`, `[]`, `[1]`})
		return c
	}
	values := map[string][]string{
		"block":     append([]string{`true`, `true`}, answerValues...),
		"reason":    append([]string{`"not now"`, `"é ü"`}, answerValues...),
		"content":   {`[]`, `[{"type":"text","text":"hooked"}]`, `[{"type":"text","text":"a"},{"type":"image","data":"aGk=","mimeType":"image/png"}]`, `null`},
		"details":   append([]string{}, hosttest.JSONValues...),
		"isError":   answerValues,
		"terminate": answerValues,
	}
	fields := []string{"block", "reason"}
	others := []string{"Block", "REASON", "blocked", "meta", "x-trace", "arguments_"}
	if c.Hook == "after" {
		fields = []string{"content", "details", "isError", "terminate"}
		others = []string{"IsError", "is_error", "Content", "TERMINATE", "meta", "result"}
	}
	var members []string
	for _, f := range fields {
		if r.IntN(3) > 0 {
			members = append(members, fmt.Sprintf("%q:%s", f, g.Pick(values[f])))
		}
	}
	for range r.IntN(3) {
		members = append(members, fmt.Sprintf("%q:%s", g.Pick(others), g.Pick(answerValues)))
	}
	if len(members) > 0 && r.IntN(10) == 0 {
		members = append(members, members[0]) // pi takes the last of a name given twice
		members[0] = strings.Replace(members[0], ":", `:null,"_":`, 1)
	}
	r.Shuffle(len(members), func(i, j int) { members[i], members[j] = members[j], members[i] })
	c.Answer = "{" + strings.Join(members, ",") + "}"
	return c
}

// TestHookAnswersMatchPi gives generated answers of before and after
// hooks to pi-agent-core 0.73.1's loop (testdata hookanswer.mjs, one
// node process for all; the hook returns the answer as JSON.parse reads
// it) and, read as a plugin's output, to ours, around one call of a tool
// that returns extra members; it compares tool_execution_end's result
// and isError, the result message, and whether the loop went on. Where
// pi passes a value on that our types cannot hold, pi's side is read as
// ours acts on it (piHookNorm). On the old main every unknown member,
// every value of another kind than the ABI's and every answer that is
// not an object or null was an error.
//
// WASMAGENT_HOOKDIFF_N sets the number of answers (default 60: node's start is most of the cost).
func TestHookAnswersMatchPi(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed: cannot run pi-agent-core")
	}
	dir := filepath.Join("..", "testdata", "pi")
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@mariozechner", "pi-agent-core")); err != nil {
		t.Skip("host/testdata/pi/node_modules is missing: run `make npm-deps`")
	}
	n := hosttest.EnvInt(t, "WASMAGENT_HOOKDIFF_N", 60)
	cases := make([]hookCase, n)
	var in bytes.Buffer
	for i := range cases {
		cases[i] = generateHookCase(uint64(i))
		b, _ := json.Marshal(cases[i])
		in.Write(append(b, '\n'))
	}
	cmd := exec.Command(node, "hookanswer.mjs")
	cmd.Dir, cmd.Stdin = dir, &in
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("hookanswer.mjs: %v\n%s", err, stderr.Bytes())
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<20)
	i := 0
	for ; sc.Scan(); i++ {
		pi := piHookNorm(t, sc.Bytes())
		ours := oursHookOutcome(t, cases[i])
		if ours != pi {
			t.Fatalf("seed %d: the %s hook answered %s\n ours: %s\n   pi: %s", i, cases[i].Hook, cases[i].Answer, ours, pi)
		}
	}
	if i != n {
		t.Fatalf("hookanswer.mjs answered %d of %d\n%s", i, n, stderr.Bytes())
	}
}

// hookOutcome is what the differential compares of a call.
type hookOutcome struct {
	End struct {
		Result  map[string]any `json:"result"`
		IsError any            `json:"isError"`
	} `json:"end"`
	Message struct {
		Content any `json:"content"`
		Details any `json:"details"`
		IsError any `json:"isError"`
	} `json:"message"`
	Calls int    `json:"calls"`
	Error string `json:"error,omitempty"`
}

func (o *hookOutcome) String() string {
	b, _ := json.Marshal(o)
	return string(b)
}

// piHookNorm reads pi's outcome as ours acts on it: an isError of
// another kind than boolean as its truthiness, a terminate of another
// kind as false (pi ends a batch on true alone), and a text block's
// text that is no string (a block reason) as its JSON.
func piHookNorm(t *testing.T, line []byte) string {
	var o hookOutcome
	if err := json.Unmarshal(line, &o); err != nil {
		t.Fatalf("%v: %s", err, line)
	}
	o.End.IsError, o.Message.IsError = jsTruthy(o.End.IsError), jsTruthy(o.Message.IsError)
	if v, ok := o.End.Result["terminate"]; ok && v != nil {
		if _, isBool := v.(bool); !isBool {
			o.End.Result["terminate"] = false
		}
	}
	for _, content := range []any{o.End.Result["content"], o.Message.Content} {
		blocks, _ := content.([]any)
		for _, b := range blocks {
			if b, ok := b.(map[string]any); ok {
				if _, isString := b["text"].(string); !isString && b["type"] == "text" {
					text, _ := json.Marshal(b["text"])
					b["text"] = string(text)
				}
			}
		}
	}
	return o.String()
}

func jsTruthy(v any) bool {
	switch x := v.(type) {
	case nil:
		return false
	case bool:
		return x
	case string:
		return x != ""
	case float64:
		return x != 0
	}
	return true
}

// oursHookOutcome runs the call through our loop with the answer read
// as a plugin's output.
func oursHookOutcome(t *testing.T, c hookCase) string {
	t.Helper()
	tool := hosttest.Tool("echo", "", func(context.Context, string, json.RawMessage, host.UpdateFunc) (host.ToolResult, error) {
		return host.ToolResult{Content: host.Text("echoed"), Details: map[string]any{"n": 1}, Extra: json.RawMessage(`{"meta":"kept"}`)}, nil
	})
	calls := 0
	model := scripted.Of(scripted.Turn{Content: host.Contents{host.ToolCall{ID: "c1", Name: "echo", Arguments: json.RawMessage(`{}`)}}, StopReason: host.StopReasonToolUse},
		scripted.Turn{Content: host.Text("done")})
	cfg := &host.Config{Model: host.ModelFunc(func(ctx context.Context, req *host.Request, emit func(host.AssistantMessageEvent)) *host.AssistantMessage {
		calls++
		return model.Stream(ctx, req, emit)
	})}
	if c.Hook == "before" {
		cfg.BeforeToolCall = []host.BeforeToolCallHook{host.BeforeToolCallFunc(func(context.Context, *host.ToolCallContext) (*host.BeforeToolCallResult, error) {
			r, _, err := wasmtool.ParseBefore([]byte(c.Answer))
			return r, err
		})}
	} else {
		cfg.AfterToolCall = []host.AfterToolCallHook{host.AfterToolCallFunc(func(context.Context, *host.AfterToolCallContext) (*host.AfterToolCallResult, error) {
			r, _, err := wasmtool.ParseAfter([]byte(c.Answer))
			return r, err
		})}
	}
	var o hookOutcome
	rec := hosttest.NewRecorder()
	_, err := host.RunLoop(context.Background(), []host.Message{&host.UserMessage{Content: host.Text("go"), Timestamp: 1}},
		&host.Context{Tools: []host.Tool{tool}}, cfg, rec.Sink)
	if err != nil {
		o.Error = err.Error()
	}
	for _, e := range rec.Events() {
		switch e := e.(type) {
		case host.ToolExecutionEndEvent:
			b, _ := json.Marshal(e.Result)
			json.Unmarshal(b, &o.End.Result)
			o.End.IsError = e.IsError
		case host.MessageEndEvent:
			if r, ok := e.Message.(*host.ToolResultMessage); ok {
				b, _ := json.Marshal(r)
				json.Unmarshal(b, &o.Message)
			}
		}
	}
	o.Calls = calls
	return o.String()
}

// Through a plugin, what pi would carry on with but looks like a mistake
// is a warning in the plugin's log, and the answer is read as pi reads
// it: a "block" of "yes" blocks, a misspelt "Block" is ignored. On the
// old main both made the call an error result.
func TestHookAnswerWarningsAreLogged(t *testing.T) {
	var log bytes.Buffer
	p, err := load(t, "internal/testplugins/raw", wasmtool.Options{Name: "raw", Logger: slog.New(slog.NewTextHandler(&log, nil)), Grants: runtime.Grants{Config: map[string]string{
		"describe":         `{"abi":1,"name":"raw","hooks":["beforeToolCall","afterToolCall"]}`,
		"before_tool_call": `{"block":"yes","Block":false,"reason":"no"}`,
		"after_tool_call":  `{"is_error":true,"details":7}`,
	}}})
	if err != nil {
		t.Fatal(err)
	}
	c := &host.ToolCallContext{ToolCall: host.ToolCall{ID: "c1", Name: "t", Arguments: []byte(`{}`)}, Args: []byte(`{}`)}
	b, err := p.BeforeToolCall().BeforeToolCall(context.Background(), c)
	if err != nil || !b.Block || b.Reason != "no" {
		t.Fatalf("before: %+v %v", b, err)
	}
	a, err := p.AfterToolCall().AfterToolCall(context.Background(), &host.AfterToolCallContext{ToolCallContext: *c, Result: host.ToolResult{Content: host.Text("x")}})
	if err != nil || a.IsError != nil || string(a.Details.(json.RawMessage)) != "7" {
		t.Fatalf("after: %+v %v", a, err)
	}
	for _, want := range []string{`block is \"yes\", not a boolean: taken as true`, `unknown field \"Block\" ignored (\"block\" misspelt?)`, `unknown field \"is_error\" ignored (\"isError\" misspelt?)`} {
		if !strings.Contains(log.String(), want) {
			t.Errorf("the log does not say %s:\n%s", want, log.String())
		}
	}
}
