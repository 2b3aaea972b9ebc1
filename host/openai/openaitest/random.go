package openaitest

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/wasmagent/wasmagent/host"
)

// RandomMessage streams a message of random shape — thinking and text
// deltas in turns (pi-ai puts them in one thinking and one text block),
// then one to five tool calls whose argument fragments interleave —
// in fragments of 1 to maxFrag bytes, with words of up to maxWord bytes. It
// returns the stream (not finished: call Finish) and the content the
// adapter should assemble from it.
func RandomMessage(rng *rand.Rand, maxWord, maxFrag int) (*Stream, host.Contents) {
	s := &Stream{}
	var want host.Contents
	frags := func(text string) []string {
		var out []string
		for len(text) > 0 {
			n := min(len(text), 1+rng.IntN(maxFrag))
			out = append(out, text[:n])
			text = text[n:]
		}
		return out
	}
	word := func() string {
		return strings.Repeat(string(rune('a'+rng.IntN(26))), 1+rng.IntN(maxWord))
	}
	// as pi-ai: one thinking and one text block, in the order they
	// start, each with all of its kind's deltas
	textAt, thinkAt := -1, -1
	for range 1 + rng.IntN(3) {
		if rng.IntN(2) == 0 {
			t := word()
			for _, f := range frags(t) {
				s.Reasoning(f)
			}
			if thinkAt < 0 {
				thinkAt = len(want)
				want = append(want, host.ThinkingContent{ThinkingSignature: "reasoning_content"})
			}
			b := want[thinkAt].(host.ThinkingContent)
			b.Thinking += t
			want[thinkAt] = b
		}
		t := word() + " <&> " + word()
		for _, f := range frags(t) {
			s.Text(f)
		}
		if textAt < 0 {
			textAt = len(want)
			want = append(want, host.TextContent{})
		}
		want[textAt] = host.TextContent{Text: want[textAt].(host.TextContent).Text + t}
	}
	calls := 1 + rng.IntN(5)
	pending := make([][]string, calls)
	for i := range calls {
		args := fmt.Sprintf(`{"i":%d,"s":"%s\"\n"}`, i, word())
		s.Call(i, fmt.Sprintf("call_%d", i), "tool")
		pending[i] = frags(args)
		want = append(want, host.ToolCall{ID: fmt.Sprintf("call_%d", i), Name: "tool", Arguments: json.RawMessage(args)})
	}
	for left := calls; left > 0; {
		i := rng.IntN(calls)
		if len(pending[i]) == 0 {
			continue
		}
		s.Args(i, pending[i][0])
		if pending[i] = pending[i][1:]; len(pending[i]) == 0 {
			left--
		}
	}
	return s, want
}
