package openai_test

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"net/http"
	"strings"
	"testing"

	"github.com/wasmagent/wasmagent/host"
	"github.com/wasmagent/wasmagent/host/openai"
	"github.com/wasmagent/wasmagent/host/openai/openaitest"
)

// However deep a model nests a call's arguments (valid JSON up to
// encoding/json's 10,000 levels), the message encodes, and the lines
// that hold it (a session entry, agent_end's list of messages) decode
// again: arguments nested at most host.MaxKeptArgumentDepth deep are kept
// as the JSON they are, deeper ones as the string of their text. On the
// old main arguments 9,999 deep made the message fail to encode at all,
// and 9,997 deep made a session line encoding/json refuses.
func TestDeepArgumentsKeepTheMessageReadable(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	depths := []int{9999, 9997, 10000, 1, host.MaxKeptArgumentDepth, host.MaxKeptArgumentDepth + 1}
	for range 2 {
		depths = append(depths, 1+rng.IntN(10000))
	}
	for _, d := range depths {
		var b strings.Builder
		for i := range d {
			if rng.IntN(2) == 0 || i == 0 {
				b.WriteString(`{"a":`)
			} else {
				b.WriteString(`[`)
			}
		}
		b.WriteString(`0`)
		s := b.String()
		for i := len(s) - 1; i >= 0; i-- {
			switch s[i] {
			case '{':
				b.WriteByte('}')
			case '[':
				b.WriteByte(']')
			}
		}
		args := b.String()
		body := (&openaitest.Stream{}).Call(0, "c1", "t").Args(0, args).Finish("tool_calls").Bytes()
		m, err := openai.New(openai.Options{Model: "m", BaseURL: "http://deep.invalid/v1", Retries: -1, HTTPClient: &http.Client{Transport: bodyTransport(body)}})
		if err != nil {
			t.Fatal(err)
		}
		msg := m.Stream(context.Background(), hello, func(host.AssistantMessageEvent) {})
		if msg.StopReason != host.StopReasonToolUse {
			t.Fatalf("depth %d: %s %q", d, msg.StopReason, msg.ErrorMessage)
		}
		enc, err := json.Marshal(msg)
		if err != nil {
			t.Fatalf("depth %d: the message does not encode: %v", d, err)
		}
		for _, line := range []string{
			`{"type":"message","id":"e1","parentId":null,"message":` + string(enc) + `}`,
			`{"type":"agent_end","messages":[{"role":"user","content":"go"},` + string(enc) + `]}`,
		} {
			var v any
			if err := json.Unmarshal([]byte(line), &v); err != nil {
				t.Fatalf("depth %d: a line holding the message does not decode: %v", d, err)
			}
		}
		var back host.AssistantMessage
		if err := json.Unmarshal(enc, &back); err != nil {
			t.Fatalf("depth %d: the message does not decode: %v", d, err)
		}
		got := back.Content[0].(host.ToolCall).Arguments
		want := args
		if d > host.MaxKeptArgumentDepth {
			q, _ := json.Marshal(args)
			want = string(q)
		}
		if string(got) != want {
			t.Fatalf("depth %d: the arguments came back as %.60s…, want %.60s…", d, got, want)
		}
	}
}
