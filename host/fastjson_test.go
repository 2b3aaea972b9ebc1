package host_test

import (
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/wasmagent/wasmagent/host"
	"github.com/wasmagent/wasmagent/host/hosttest"
)

// fastMessageSeeds are messages in the shapes the fast decoder takes and
// just beside them.
var fastMessageSeeds = []string{
	`{"role":"user","content":[{"type":"text","text":"hi \"there\"\n\u00e9\ud83d\ude00"}],"timestamp":1}`,
	`{"role":"user","content":[{"type":"text","text":"\ud800\u0041 \udc00 \ud83d\ude00 \ud800\ud800\udc00 \ud800"}],"timestamp":1}`,
	"{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"\xff\xc3 \\n \xed\xa0\x80\"}],\"timestamp\":1}",
	`{"role":"assistant","content":[{"type":"thinking","thinking":"t","thinkingSignature":"s"},{"type":"text","text":"a"},{"type":"toolCall","id":"c","name":"n","arguments":{"a":[1,2.5e3,null,true]}}],"api":"x","provider":"p","model":"m","usage":{"input":1,"output":2,"cacheRead":0,"cacheWrite":0,"totalTokens":3,"cost":{"input":0.5,"output":0,"cacheRead":0,"cacheWrite":0,"total":0.5}},"stopReason":"toolUse","timestamp":2}`,
	`{"role":"toolResult","toolCallId":"c","toolName":"n","content":[{"type":"image","data":"aGk=","mimeType":"image/png"}],"details":{"k":[1]},"isError":false,"timestamp":3}`,
	`{"role":"toolResult","toolCallId":"c","toolName":"n","content":[],"details":null,"isError":true,"timestamp":3}`,
	`{"role":"assistant","content":[{"type":"thinking","thinking":"","redacted":true}],"api":"x","provider":"p","model":"m","responseId":"r","usage":{"input":1,"output":2,"cacheRead":0,"cacheWrite":0,"totalTokens":3,"cost":{"input":0.5,"output":0,"cacheRead":0,"cacheWrite":0,"total":0.5}},"stopReason":"error","errorMessage":"","timestamp":-0}`,
}

// checkFastMessage fails when the fast decoder takes data and gives other
// than encoding/json's decoding, the JSON it keeps too.
func checkFastMessage(t *testing.T, data []byte) bool {
	t.Helper()
	fast, ok := host.DecodeMessageFast(data)
	if !ok {
		return false
	}
	slow, err := host.DecodeMessageJSON(data)
	if err != nil || !reflect.DeepEqual(fast, slow) {
		t.Fatalf("%s\nfast: %#v\nslow: %#v (%v)", data, fast, slow, err)
	}
	return true
}

// The fast decoder of messages gives what encoding/json gives, kept JSON
// included (none), on every input it takes: generated messages of every
// shape (hosttest.Given, with the odd ones), messages as Go writes them,
// and each of those cut or with a byte changed.
func TestFastMessageDecoderIsEncodingJSONs(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	inputs := append([]string{}, fastMessageSeeds...)
	for range 300 { // as wasmagent writes its own: every one is taken
		b, _ := json.Marshal(goMessage(r))
		if !checkFastMessage(t, b) {
			t.Fatalf("the fast decoder does not take a message as Go writes it: %s", b)
		}
		inputs = append(inputs, string(b))
	}
	for seed := range uint64(600) {
		g := hosttest.Given{R: rand.New(rand.NewPCG(seed, 9)), Odd: seed%2 == 0}
		given := g.Message("", "c1")
		inputs = append(inputs, given)
		if m, err := host.DecodeMessage([]byte(given)); err == nil {
			if b, err := json.Marshal(m); err == nil {
				inputs = append(inputs, string(b)) // as wasmagent writes it
			}
		}
	}
	const bytesTried = "{}[]\":,\\ 01-.eEtfnu"
	for _, in := range inputs {
		checkFastMessage(t, []byte(in))
		for range 3 {
			b := []byte(in)
			switch i := r.IntN(len(b)); r.IntN(3) {
			case 0:
				b = b[:i]
			case 1:
				b[i] = bytesTried[r.IntN(len(bytesTried))]
			default:
				b = append(b[:i], append([]byte{bytesTried[r.IntN(len(bytesTried))]}, b[i:]...)...)
			}
			checkFastMessage(t, b)
		}
	}
}

// goMessage is a message made in Go, of texts with escapes and of every
// field.
func goMessage(r *rand.Rand) host.Message {
	text := func() string { return hosttest.Texts[r.IntN(len(hosttest.Texts))] + "\"\t<&>\u2028\x01 ünï" }
	switch r.IntN(3) {
	case 0:
		return &host.UserMessage{Content: host.Contents{host.TextContent{Text: text()}, host.ImageContent{Data: "aGk=", MimeType: "image/png"}}, Timestamp: r.Int64N(1 << 50)}
	case 1:
		return &host.AssistantMessage{Content: host.Contents{host.ThinkingContent{Thinking: text(), ThinkingSignature: "c2ln", Redacted: r.IntN(2) == 0},
			host.TextContent{Text: text(), TextSignature: "t"}, host.ToolCall{ID: "c", Name: "n", Arguments: json.RawMessage(`{"p":"` + "a\\n" + `","n":[1.5,-2e3]}`)}},
			API: "openai-completions", Provider: "p", Model: "m", ResponseID: "r", Usage: host.Usage{Input: 3, Output: 4, TotalTokens: 7, Cost: host.Cost{Input: 0.003, Total: 0.003}},
			StopReason: host.StopReasonToolUse, ErrorMessage: text(), Timestamp: -r.Int64N(1000)}
	}
	return &host.ToolResultMessage{ToolCallID: "c", ToolName: "n", Content: host.Text(text()), Details: map[string]any{"lines": 120.0, "ok": true}, IsError: r.IntN(2) == 0, Timestamp: 5}
}

// FuzzFastMessageDecoder: whatever the input, the fast decoder does not
// panic, and what it takes it decodes as encoding/json does.
func FuzzFastMessageDecoder(f *testing.F) {
	for _, s := range fastMessageSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) { checkFastMessage(t, data) })
}
