package eventwire_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/wasmagent/wasmagent/host"
	"github.com/wasmagent/wasmagent/host/eventwire"
	"github.com/wasmagent/wasmagent/host/hosttest"
	"github.com/wasmagent/wasmagent/host/openai"
	"github.com/wasmagent/wasmagent/host/openai/openaitest"
)

// run streams body as the model's first answer ("done" as its second)
// through the real loop and the openai adapter, into an Encoder with opts.
// It returns the first assistant message and the number of updates the
// loop emitted.
func run(t testing.TB, model host.Model, opts eventwire.Options, out *bytes.Buffer) (*host.AssistantMessage, int) {
	ok := hosttest.Tool("tool", "", func(context.Context, string, json.RawMessage, host.UpdateFunc) (host.ToolResult, error) {
		return host.ToolResult{Content: host.Text("ok")}, nil
	})
	enc := eventwire.NewLines(out, opts)
	updates := 0
	msgs, err := host.RunLoop(context.Background(), []host.Message{&host.UserMessage{Content: host.Text("go")}},
		&host.Context{Tools: []host.Tool{ok}}, &host.Config{Model: model}, func(ctx context.Context, e host.Event) error {
			if _, ok := e.(host.MessageUpdateEvent); ok {
				updates++
			}
			return enc.Event(ctx, e)
		})
	if err != nil {
		t.Fatal(err)
	}
	return msgs[1].(*host.AssistantMessage), updates
}

func adapter(t testing.TB, body []byte) host.Model {
	m, err := openai.New(openai.Options{Model: "test-model", BaseURL: "http://wire.invalid/v1", Retries: -1,
		HTTPClient: openaitest.Client(body, (&openaitest.Stream{}).Text("done").Finish("stop").Bytes())})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// line is what a pi client reads of an event line.
type line struct {
	Type    string          `json:"type"`
	Message json.RawMessage `json:"message"`
	Event   struct {
		Type         string          `json:"type"`
		ContentIndex int             `json:"contentIndex"`
		Delta        *string         `json:"delta"`
		Content      *string         `json:"content"`
		ToolCall     *host.ToolCall  `json:"toolCall"`
		Partial      json.RawMessage `json:"partial"`
	} `json:"assistantMessageEvent"`
	size int
}

// firstMessage returns the lines of the first assistant message, from its
// message_start to its message_end.
func firstMessage(t testing.TB, out []byte) []line {
	var ls []line
	in := false
	for raw := range bytes.Lines(out) {
		var l line
		if err := json.Unmarshal(raw, &l); err != nil {
			t.Fatalf("a line that is not JSON: %v: %.200s", err, raw)
		}
		l.size = len(raw)
		if l.Type == "message_start" && bytes.Contains(l.Message, []byte(`"role":"assistant"`)) {
			in = true
		}
		if in {
			ls = append(ls, l)
			if l.Type == "message_end" {
				return ls
			}
		}
	}
	t.Fatal("no whole assistant message in the output")
	return nil
}

// checkPi reads the lines as a pi client does and checks that every
// message sent is exact (a state the message went through, the same in
// "message" and "partial"), that every delta is the end of its block as
// the message then stood, that message_end is the final message, and that
// the updates stayed within the bound. It returns the updates' bytes.
func checkPi(t testing.TB, ls []line, final *host.AssistantMessage, opts eventwire.Options) int {
	t.Helper()
	want := marshalPlain(t, final)
	spent := 0
	for i, l := range ls {
		switch l.Type {
		case "message_update":
			spent += l.size
			if !bytes.Equal(l.Message, l.Event.Partial) {
				t.Fatalf("update %d: message and partial differ", i)
			}
			var m host.AssistantMessage
			if err := json.Unmarshal(l.Message, &m); err != nil {
				t.Fatalf("update %d: %v", i, err)
			}
			checkState(t, i, &m, final)
			if _, isCall := m.Content[l.Event.ContentIndex].(host.ToolCall); l.Event.Delta != nil && !isCall {
				if block := blockText(m.Content[l.Event.ContentIndex]); !strings.HasSuffix(block, *l.Event.Delta) {
					t.Fatalf("update %d: delta %.40q is not the end of its block %.80q", i, *l.Event.Delta, block)
				}
			}
		case "message_end":
			if !bytes.Equal(l.Message, want) {
				t.Fatalf("message_end:\n got %.300s\nwant %.300s", l.Message, want)
			}
		}
	}
	if bound := 2 * (opts.Floor + opts.Ratio*int64(len(want))); int64(spent) > bound {
		t.Fatalf("updates wrote %d bytes, over the bound %d (2 × (floor %d + %d × message %d))", spent, bound, opts.Floor, opts.Ratio, len(want))
	}
	return spent
}

// checkState checks that m is a state final went through: the same blocks
// so far, each a prefix of the final one.
func checkState(t testing.TB, i int, m, final *host.AssistantMessage) {
	t.Helper()
	if len(m.Content) > len(final.Content) {
		t.Fatalf("update %d: %d blocks, the final message has %d", i, len(m.Content), len(final.Content))
	}
	for j, b := range m.Content {
		f := final.Content[j]
		if call, ok := b.(host.ToolCall); ok && kind(f) == kind(b) {
			// a partial call's arguments are the value of the prefix
			// streamed so far, as pi-ai gives them: never a string
			var v any
			if err := json.Unmarshal(call.Arguments, &v); err != nil {
				t.Fatalf("update %d, block %d: arguments %.80q are not JSON", i, j, call.Arguments)
			}
			if _, isString := v.(string); isString {
				t.Fatalf("update %d, block %d: arguments %.80q are a string", i, j, call.Arguments)
			}
			continue
		}
		if kind(b) != kind(f) || !strings.HasPrefix(blockText(f), blockText(b)) {
			t.Fatalf("update %d, block %d: %.80q is not a prefix of %.80q", i, j, blockText(b), blockText(f))
		}
	}
}

func kind(c host.Content) string { return fmt.Sprintf("%T", c) }

// blockText is a block's text, thinking, or arguments as the model sent
// them (partial arguments that are not yet JSON travel as a JSON string).
// The generated arguments are never {}.
func blockText(c host.Content) string {
	switch b := c.(type) {
	case host.TextContent:
		return b.Text
	case host.ThinkingContent:
		return b.Thinking
	case host.ToolCall:
		var s string
		if json.Unmarshal(b.Arguments, &s) == nil {
			return s
		}
		if string(b.Arguments) == "{}" {
			return "" // no arguments yet (or none at all) travel as {}
		}
		return string(b.Arguments)
	}
	return ""
}

// checkDeltas rebuilds the message from ModeDeltas lines alone (start
// opens a block, deltas append, ends carry the whole block) and checks it
// against the final message and the bound. It returns the updates' bytes.
func checkDeltas(t testing.TB, ls []line, final *host.AssistantMessage, opts eventwire.Options) int {
	t.Helper()
	want := marshalPlain(t, final)
	blocks := map[int]*strings.Builder{}
	ended := map[int]string{}
	spent := 0
	for i, l := range ls {
		if l.Type != "message_update" {
			continue
		}
		spent += l.size
		if l.Message != nil || l.Event.Partial != nil {
			t.Fatalf("update %d carries a partial message", i)
		}
		e := l.Event
		switch {
		case strings.HasSuffix(e.Type, "_start"):
			blocks[e.ContentIndex] = &strings.Builder{}
		case strings.HasSuffix(e.Type, "_delta"):
			blocks[e.ContentIndex].WriteString(*e.Delta)
		case e.Type == host.StreamToolCallEnd:
			ended[e.ContentIndex] = string(e.ToolCall.Arguments)
		case strings.HasSuffix(e.Type, "_end"):
			ended[e.ContentIndex] = *e.Content
		}
	}
	if len(blocks) != len(final.Content) {
		t.Fatalf("%d blocks started, the message has %d", len(blocks), len(final.Content))
	}
	for j, c := range final.Content {
		if got := blocks[j].String(); got != blockText(c) {
			t.Fatalf("block %d: deltas make %.80q, the message has %.80q", j, got, blockText(c))
		}
		if tc, ok := c.(host.ToolCall); ok {
			var a, b any
			json.Unmarshal([]byte(ended[j]), &a)
			json.Unmarshal(tc.Arguments, &b)
			if ae, _ := json.Marshal(a); string(ae) != func() string { be, _ := json.Marshal(b); return string(be) }() {
				t.Fatalf("block %d: toolcall_end has %.80q", j, ended[j])
			}
		} else if ended[j] != blockText(c) {
			t.Fatalf("block %d: its end has %.80q", j, ended[j])
		}
	}
	if bound := opts.Floor + (opts.Ratio+2)*int64(len(want)) + 300*int64(len(final.Content)); int64(spent) > bound {
		t.Fatalf("updates wrote %d bytes, over the bound %d (floor %d + %d × message %d + 300 × %d blocks)",
			spent, bound, opts.Floor, opts.Ratio+2, len(want), len(final.Content))
	}
	return spent
}

// For random message shapes, fragment sizes and budgets, through the real
// adapter and loop: a pi client rebuilds every state exactly and the final
// message, a deltas client rebuilds the message from deltas alone, and both
// stay within their bound.
func TestRandomMessages(t *testing.T) {
	held := 0 // runs in which some update was held back: the bound at work
	for seed := range uint64(40) {
		rng := rand.New(rand.NewPCG(seed, 20))
		s, _ := openaitest.RandomMessage(rng, 1+rng.IntN(3000), 1+rng.IntN(300))
		body := s.Finish("tool_calls").Bytes()
		floor := int64(rng.IntN(20000))
		for _, mode := range []eventwire.Mode{eventwire.ModePi, eventwire.ModeDeltas} {
			opts := eventwire.Options{Mode: mode, Floor: max(floor, 1), Ratio: int64(1 + rng.IntN(6))}
			var out bytes.Buffer
			final, updates := run(t, adapter(t, body), opts, &out)
			ls := firstMessage(t, out.Bytes())
			if mode == eventwire.ModePi {
				checkPi(t, ls, final, opts)
			} else {
				checkDeltas(t, ls, final, opts)
			}
			if bytes.Count(out.Bytes(), []byte(`"type":"message_update"`)) < updates {
				held++
			}
		}
	}
	if held < 20 {
		t.Fatalf("updates were held back in only %d of 80 runs: the cases do not reach the bound", held)
	}
	t.Logf("updates held back in %d of 80 runs", held)
}

// Small messages stream update by update, as pi's do: under the floor,
// ModePi writes exactly what ModeAll writes.
func TestSmallMessagesStreamAsPi(t *testing.T) {
	s := &openaitest.Stream{}
	for _, w := range strings.Fields("The answer to the question you asked is forty-two , as computed .") {
		s.Text(w + " ")
	}
	body := s.Finish("stop").Bytes()
	var pi, all bytes.Buffer
	run(t, adapter(t, body), eventwire.Options{}, &pi)
	run(t, adapter(t, body), eventwire.Options{Mode: eventwire.ModeAll}, &all)
	norm := func(b []byte) string { return string(hosttest.NormalizeTimestamps(b)) }
	if norm(pi.Bytes()) != norm(all.Bytes()) {
		t.Fatalf("ModePi differs from ModeAll for a small message:\n%s\n---\n%s", pi.Bytes(), all.Bytes())
	}
	if n := bytes.Count(pi.Bytes(), []byte(`"type":"text_delta"`)); n != 13 {
		t.Fatalf("%d text deltas, want 13", n)
	}
}

// The smallest pieces cost the most per byte: one-letter thinking and
// text deltas in turn (one thinking and one text block, as pi-ai puts
// them), then empty tool calls. Both modes keep their bounds.
func TestTinyBlocks(t *testing.T) {
	s := &openaitest.Stream{}
	for range 200 {
		s.Reasoning("r").Text("t")
	}
	for i := range 598 {
		s.Call(i, "c", "t")
	}
	body := s.Finish("tool_calls").Bytes()
	for _, mode := range []eventwire.Mode{eventwire.ModePi, eventwire.ModeDeltas} {
		opts := eventwire.Options{Mode: mode, Floor: 1, Ratio: 1}
		var out bytes.Buffer
		final, _ := run(t, adapter(t, body), opts, &out)
		if len(final.Content) != 600 {
			t.Fatalf("%d blocks", len(final.Content))
		}
		if ls := firstMessage(t, out.Bytes()); mode == eventwire.ModePi {
			checkPi(t, ls, final, opts)
		} else {
			checkDeltas(t, ls, final, opts)
		}
	}
}

// pi's README streams an answer by writing each text_delta's delta. In
// ModePi, past the floor, such a client still gets every block whole: held
// deltas are merged, never dropped, for a message of a few blocks.
func TestConcatenatedDeltasStayWhole(t *testing.T) {
	s := &openaitest.Stream{}
	var thinking, text strings.Builder
	for i := range 1000 {
		w := fmt.Sprintf("t%d ", i)
		thinking.WriteString(w)
		s.Reasoning(w)
	}
	for i := range 2000 {
		w := fmt.Sprintf("w%d ", i)
		text.WriteString(w)
		s.Text(w)
	}
	args := `{"s":"` + strings.Repeat("x", 30_000) + `"}`
	s.Call(0, "call_0", "tool")
	for i := 0; i < len(args); i += 7 {
		s.Args(0, args[i:min(i+7, len(args))])
	}
	body := s.Finish("tool_calls").Bytes()
	opts := eventwire.Options{Floor: 16 << 10, Ratio: 4}
	var out bytes.Buffer
	final, updates := run(t, adapter(t, body), opts, &out)
	ls := firstMessage(t, out.Bytes())
	spent := checkPi(t, ls, final, opts)
	deltas := map[int]*strings.Builder{0: {}, 1: {}, 2: {}}
	n := 0
	for _, l := range ls {
		if l.Type == "message_update" {
			n++
			if l.Event.Delta != nil {
				deltas[l.Event.ContentIndex].WriteString(*l.Event.Delta)
			}
		}
	}
	if deltas[0].String() != thinking.String() || deltas[1].String() != text.String() || deltas[2].String() != args {
		t.Fatalf("concatenated deltas: %d, %d, %d bytes; want %d, %d, %d", deltas[0].Len(), deltas[1].Len(), deltas[2].Len(), thinking.Len(), text.Len(), len(args))
	}
	if n >= updates/10 {
		t.Fatalf("%d of %d updates sent: the budget did not hold any back", n, updates)
	}
	t.Logf("%d of %d updates sent, %d bytes", n, updates, spent)
}

// marshalPlain is json.Marshal without HTML escaping, as the host writes
// events.
func marshalPlain(t testing.TB, v any) []byte {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return bytes.TrimRight(b.Bytes(), "\n")
}
