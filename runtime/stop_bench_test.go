package runtime

import (
	"context"
	"encoding/json"
	"fmt"
	goruntime "runtime"
	"testing"
	"time"

	"github.com/wasmagent/wasmagent/internal/wasmbuild"
	"github.com/wasmagent/wasmagent/sdk"
)

// stoppers are the ways of stopping guest code that BenchmarkStopper
// compares: fuel with the call-depth limit (what runs), fuel alone (on the
// probe plugin its checks differ from the old placement rule's in 2 of
// 2442 functions: the figure of before the depth limit), wazero's
// WithCloseOnContextDone, and nothing at all (the floor, unsafe).
var stoppers = []struct{ opt, name string }{{"", "fuel"}, {"nodepth", "fuel-nodepth"}, {"ctd", "ctd"}, {"none", "none"}}

// The cost of stopping guest code, on loop-heavy (sha256 of 1 MiB) and
// call-heavy (fib 27) Go plugin code. Each of "hash/fuel" … runs alone;
// "hash/side-by-side" runs fuel, fuel-nodepth and none in turn within
// each iteration and reports the ratios of the CPU time the calling
// thread spent in each (the guest runs on it), which a loaded machine
// skews far less than separate runs of wall time.
//
//	go test ./runtime -run '^$' -bench Stopper -count 6
func BenchmarkStopper(b *testing.B) {
	ctx := context.Background()
	path := wasmbuild.ForTest(b, "internal/testplugins/probe")
	for _, work := range []struct{ tool, args string }{{"hash", `{"mib":1}`}, {"fib", `{"n":27}`}} {
		in, _ := json.Marshal(sdk.ExecuteInput{ToolCallID: "c", Name: work.tool, Args: json.RawMessage(work.args)})
		for _, s := range stoppers {
			b.Run(fmt.Sprintf("%s/%s", work.tool, s.name), func(b *testing.B) {
				p := stopperPlugin(b, path, s.opt)
				for b.Loop() {
					if _, err := p.Call(ctx, sdk.ExportExecute, in, nil); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
		b.Run(work.tool+"/side-by-side", func(b *testing.B) {
			side := stoppers[:2:2]
			side = append(side, stoppers[3])
			ps := make([]*Plugin, len(side))
			spent := make([]time.Duration, len(side))
			for i, s := range side {
				ps[i] = stopperPlugin(b, path, s.opt)
			}
			goruntime.LockOSThread()
			defer goruntime.UnlockOSThread()
			for b.Loop() {
				for i, p := range ps {
					start := threadCPU()
					if _, err := p.Call(ctx, sdk.ExportExecute, in, nil); err != nil {
						b.Fatal(err)
					}
					spent[i] += threadCPU() - start
				}
			}
			none := spent[len(spent)-1].Seconds()
			for i, s := range side[:len(side)-1] {
				b.ReportMetric(spent[i].Seconds()/none, s.name+"/none")
			}
		})
	}
}

// stopperPlugin is the probe plugin on a Runtime of its own, stopped by
// the given stopper.
func stopperPlugin(b *testing.B, path, stopper string) *Plugin {
	ctx := context.Background()
	r, err := New(ctx, Options{CacheDir: wasmbuild.TestCacheDir(), stopper: stopper})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { r.Close(ctx) })
	m, err := r.CompileFile(ctx, path)
	if err != nil {
		b.Fatal(err)
	}
	p, err := r.NewPlugin(m, PluginOptions{PoolSize: 2})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(p.Close)
	return p
}
