package runtime

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/wasmagent/wasmagent/internal/wasmbuild"
	"github.com/wasmagent/wasmagent/sdk"
)

// The cost of stopping guest code, on loop-heavy (sha256 of 1 MiB) and
// call-heavy (fib 27) Go plugin code: fuel (what runs), wazero's
// WithCloseOnContextDone, and nothing at all (the floor, unsafe).
//
//	go test ./runtime -run '^$' -bench Stopper -count 6
func BenchmarkStopper(b *testing.B) {
	ctx := context.Background()
	path := wasmbuild.ForTest(b, "internal/testplugins/probe")
	for _, work := range []struct{ tool, args string }{{"hash", `{"mib":1}`}, {"fib", `{"n":27}`}} {
		in, _ := json.Marshal(sdk.ExecuteInput{ToolCallID: "c", Name: work.tool, Args: json.RawMessage(work.args)})
		for _, stopper := range []string{"", "ctd", "none"} {
			name := map[string]string{"": "fuel", "ctd": "ctd", "none": "none"}[stopper]
			b.Run(fmt.Sprintf("%s/%s", work.tool, name), func(b *testing.B) {
				r, err := New(ctx, Options{CacheDir: wasmbuild.TestCacheDir(), stopper: stopper})
				if err != nil {
					b.Fatal(err)
				}
				defer r.Close(ctx)
				m, err := r.CompileFile(ctx, path)
				if err != nil {
					b.Fatal(err)
				}
				p, err := r.NewPlugin(m, PluginOptions{PoolSize: 2})
				if err != nil {
					b.Fatal(err)
				}
				defer p.Close()
				for b.Loop() {
					if _, err := p.Call(ctx, sdk.ExportExecute, in, nil); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
