package eventwire_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"testing"

	"github.com/wasmagent/wasmagent/host"
	"github.com/wasmagent/wasmagent/host/eventwire"
	"github.com/wasmagent/wasmagent/host/openai"
	"github.com/wasmagent/wasmagent/host/openai/openaitest"
)

// counter counts what is written and keeps nothing.
type counter int64

func (c *counter) Write(p []byte) (int, error) { *c += counter(len(p)); return len(p), nil }

// BenchmarkJSONEvents is `run --json` for one tool argument of 80 KB, 800
// KB and 8 MB streamed in 4 KB fragments: the loop, the openai adapter
// (over an in-memory transport) and the event lines, in ModeAll (every
// update in full, the behaviour before the budget: "all") and in the
// default ModePi ("pi"). out-bytes is what the lines weigh. The 8 MB run
// in ModeAll writes some 16 GB; it runs only with
// WASMAGENT_BENCH_SLOW=1.
func BenchmarkJSONEvents(b *testing.B) {
	done := (&openaitest.Stream{}).Text("done").Finish("stop").Bytes()
	ok := &host.ToolFunc{ToolInfo: host.ToolInfo{Name: "tool"}, Func: func(context.Context, string, json.RawMessage, host.UpdateFunc) (host.ToolResult, error) {
		return host.ToolResult{Content: host.Text("ok")}, nil
	}}
	for _, size := range []struct {
		name  string
		bytes int
	}{{"80KB", 80_000}, {"800KB", 800_000}, {"8MB", 8_000_000}} {
		body := bigArgument(size.bytes, 4096)
		for _, mode := range []eventwire.Mode{eventwire.ModeAll, eventwire.ModePi} {
			b.Run(fmt.Sprintf("%s/%s", size.name, mode), func(b *testing.B) {
				if size.bytes > 1_000_000 && mode == eventwire.ModeAll && os.Getenv("WASMAGENT_BENCH_SLOW") == "" {
					b.Skip("writes some 16 GB; set WASMAGENT_BENCH_SLOW=1 to run it")
				}
				var out counter
				for b.Loop() {
					out = 0
					m, err := openai.New(openai.Options{Model: "m", BaseURL: "http://bench.invalid/v1", Retries: -1, HTTPClient: openaitest.Client(body, done)})
					if err != nil {
						b.Fatal(err)
					}
					enc := eventwire.NewLines(&out, eventwire.Options{Mode: mode})
					if _, err := host.RunLoop(context.Background(), []host.Message{&host.UserMessage{Content: host.Text("go")}},
						&host.Context{Tools: []host.Tool{ok}}, &host.Config{Model: m}, enc.Event); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(out), "out-bytes/op")
				b.ReportMetric(float64(out)/float64(size.bytes), "x-argument")
			})
		}
	}
}
