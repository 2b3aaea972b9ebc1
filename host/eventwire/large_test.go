package eventwire_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/wasmagent/wasmagent/host"
	"github.com/wasmagent/wasmagent/host/eventwire"
	"github.com/wasmagent/wasmagent/host/openai"
	"github.com/wasmagent/wasmagent/host/openai/openaitest"
)

// bigArgument streams one tool call whose arguments are size bytes, in
// fragments of frag bytes.
func bigArgument(size, frag int) []byte {
	args := `{"expression":"` + strings.Repeat("1+", (size-17)/2) + `1"}`
	s := (&openaitest.Stream{}).Call(0, "call_big", "tool")
	for i := 0; i < len(args); i += frag {
		s.Args(0, args[i:min(i+frag, len(args))])
	}
	return s.Finish("tool_calls").Bytes()
}

// An 8 MB argument (bigArgumentSize; scaled down with the floor under the
// race detector) streamed in 4 KB fragments from an httptest server:
// everything the events write stays within the stated bound (the updates
// within 2 × (floor + ratio × the message); the whole run within
// 2 × floor + (2 × ratio + 6) × the message), and a pi client reading the
// lines rebuilds every state and the final message. In ModeAll the same run would write
// some 2,000 updates of 16 MB each.
func TestBigArgument(t *testing.T) {
	if testing.Short() {
		t.Skip("streams 8 MB")
	}
	body := bigArgument(bigArgumentSize, 4096)
	for _, mode := range []eventwire.Mode{eventwire.ModePi, eventwire.ModeDeltas} {
		t.Run(string(mode), func(t *testing.T) {
			srv := openaitest.Serve(t, body, (&openaitest.Stream{}).Text("done").Finish("stop").Bytes())
			m, err := openai.New(openai.Options{Model: "test-model", BaseURL: srv.URL, Retries: -1})
			if err != nil {
				t.Fatal(err)
			}
			opts := eventwire.Options{Mode: mode, Floor: bigArgumentFloor, Ratio: eventwire.DefaultRatio}
			var out bytes.Buffer
			final, updates := run(t, m, opts, &out)
			if len(final.Content) != 1 || len(final.Content[0].(host.ToolCall).Arguments) < bigArgumentSize || final.StopReason != host.StopReasonToolUse {
				t.Fatalf("final message: %s %q", final.StopReason, final.ErrorMessage)
			}
			ls := firstMessage(t, out.Bytes())
			var spent int
			if mode == eventwire.ModePi {
				spent = checkPi(t, ls, final, opts)
			} else {
				spent = checkDeltas(t, ls, final, opts)
			}
			size := int64(len(ls[len(ls)-1].Message))
			if bound := 2*opts.Floor + (2*opts.Ratio+6)*size; int64(out.Len()) > bound {
				t.Fatalf("the run wrote %d bytes, over %d", out.Len(), bound)
			}
			t.Log(fmt.Sprintf("%s: message %d bytes, %d updates emitted by the loop, %d lines; updates wrote %d bytes, the run %d",
				mode, size, updates, bytes.Count(out.Bytes(), []byte("\n")), spent, out.Len()))
		})
	}
}
