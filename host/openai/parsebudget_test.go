package openai

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	oai "github.com/openai/openai-go/v3"

	"github.com/wasmagent/wasmagent/host"
)

// However an argument is cut into pieces, one message parses at most
// streamingParseBudget bytes of partial arguments (pi-ai parses every
// prefix: 32 KiB in 64-byte pieces would parse 8 MiB); every
// update's arguments stay a JSON value that is not a string, and the
// call's end gives the text exactly as it was sent.
func TestPartialArgumentsParseWithinBudget(t *testing.T) {
	defer func(b int) { streamingParseBudget = b }(streamingParseBudget)
	streamingParseBudget = 64 << 10
	rng := rand.New(rand.NewPCG(7, 7))
	for _, size := range []int{10, 2 << 10, 32 << 10} {
		var b strings.Builder
		b.WriteString(`{"items":[`)
		for i := 0; b.Len() < size; i++ {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `{"n":%d,"s":"%s"}`, i, strings.Repeat("x", rng.IntN(20)))
		}
		b.WriteString(`]}`)
		raw := b.String()
		updates, bad := 0, ""
		a := newAssembler(host.ModelInfo{}, func(e host.AssistantMessageEvent) {
			if e.Type != host.StreamToolCallDelta || bad != "" {
				return
			}
			updates++
			if updates%64 != 1 && updates > 2048 {
				return // a sample past the start: checking each is the quadratic this avoids
			}
			var v any
			args := e.Partial.Content[e.ContentIndex].(host.ToolCall).Arguments
			if err := json.Unmarshal(args, &v); err != nil {
				bad = fmt.Sprintf("not JSON: %.80q", args)
			} else if _, ok := v.(string); ok {
				bad = fmt.Sprintf("a string: %.80q", args)
			}
		})
		for i := 0; i < len(raw); {
			n := min(len(raw)-i, 1+rng.IntN(128))
			tc := oai.ChatCompletionChunkChoiceDeltaToolCall{Index: 0, ID: "c1", Function: oai.ChatCompletionChunkChoiceDeltaToolCallFunction{Name: "t", Arguments: raw[i : i+n]}}
			if err := a.toolCall(tc); err != nil {
				t.Fatal(err)
			}
			i += n
		}
		if bad != "" {
			t.Fatalf("%d bytes: an update's arguments are %s", len(raw), bad)
		}
		if parsed := streamingParseBudget - a.parseBudget; parsed < 0 || parsed > streamingParseBudget {
			t.Fatalf("%d bytes: parsed %d bytes of partial arguments, budget %d", len(raw), parsed, streamingParseBudget)
		}
		a.endAll()
		if got := string(a.msg.Content[0].(host.ToolCall).Arguments); got != raw {
			t.Fatalf("%d bytes: the ended call's arguments differ from what was sent", len(raw))
		}
		if updates == 0 {
			t.Fatalf("%d bytes: no update", len(raw))
		}
	}
}
