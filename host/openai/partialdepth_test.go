package openai

import (
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"

	oai "github.com/openai/openai-go/v3"

	"github.com/wasmagent/wasmagent/host"

	"github.com/wasmagent/wasmagent/host/internal/jsonread"
)

// deepArgs is generated arguments nested depth deep: objects and arrays
// mixed, siblings and strings with brackets on the way.
func deepArgs(rng *rand.Rand, depth int) string {
	var b strings.Builder
	closers := make([]byte, 0, depth)
	for i := range depth {
		if rng.IntN(2) == 0 {
			b.WriteString(`{"k":`)
			closers = append(closers, '}')
		} else {
			b.WriteString(`["[{",`)
			closers = append(closers, ']')
		}
		if i%7 == 3 {
			b.WriteString(`1,`)
			if closers[len(closers)-1] == '}' {
				b.WriteString(`"s":`)
			}
		}
	}
	b.WriteString(`"x"`)
	for i := len(closers) - 1; i >= 0; i-- {
		b.WriteByte(closers[i])
	}
	return b.String()
}

// However deep streamed arguments nest, the value of a prefix that is
// not yet JSON is cut at maxPartialDepth (as partial-json's parse is cut
// where JavaScript's stack ends), so that parsing a prefix costs its
// size times that bound, not times its depth: on the old main the
// parser nested as deep as the text, copying each level's text once per
// level above it (1 MiB of "[" in one delta took minutes and a million
// stack frames). Within the bound the value is the whole prefix's.
func TestPartialArgumentsDepthIsBounded(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 9))
	for _, depth := range []int{1, maxPartialDepth - 1, maxPartialDepth, maxPartialDepth + 1, 3 * maxPartialDepth, 4000} {
		doc := deepArgs(rng, depth)
		for range 4 {
			cut := 1 + rng.IntN(len(doc)-1)
			prefix := doc[:cut]
			got := streamingArgs([]byte(prefix))
			if !json.Valid(got) {
				t.Fatalf("depth %d, prefix of %d bytes: not JSON: %.80s", depth, cut, got)
			}
			open := jsonread.Depth([]byte(prefix))
			if n := jsonread.Depth(got); n > maxPartialDepth || n < min(open, maxPartialDepth)-1 {
				t.Fatalf("depth %d, prefix of %d bytes (nesting %d): the partial value nests %d deep, bound %d", depth, cut, open, n, maxPartialDepth)
			}
		}
	}
	// One delta of 64 KiB of brackets, through the assembler.
	a := newAssembler(host.ModelInfo{}, func(host.AssistantMessageEvent) {})
	tc := oai.ChatCompletionChunkChoiceDeltaToolCall{ID: "c1", Function: oai.ChatCompletionChunkChoiceDeltaToolCallFunction{Name: "t", Arguments: strings.Repeat("[", 64<<10)}}
	if err := a.toolCall(tc); err != nil {
		t.Fatal(err)
	}
	if n := jsonread.Depth(a.msg.Content[0].(host.ToolCall).Arguments); n > maxPartialDepth {
		t.Fatalf("64 KiB of brackets: the partial value nests %d deep", n)
	}
}
