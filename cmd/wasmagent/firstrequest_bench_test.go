package main_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wasmagent/wasmagent/internal/wasmbuild"
)

// Time to the first model request: a new wasmagent process with 0, 1 and
// 10 Go plugins, from its start to the moment an OpenAI-compatible model
// (an httptest server) receives the first request, with the caches warm
// (a run before). The op is exactly that time; the rest of the run is
// not counted.
//
//	go test ./cmd/wasmagent -run '^$' -bench ColdStartFirstRequest -count 3
func BenchmarkColdStartFirstRequest(b *testing.B) {
	calc, err := os.ReadFile(wasmbuild.ForTest(b, "plugins/calc"))
	if err != nil {
		b.Fatal(err)
	}
	first := make(chan time.Time, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case first <- time.Now():
		default:
		}
		sse(w, chunk(`{"role":"assistant","content":"done"}`, "stop"), "[DONE]")
	}))
	defer srv.Close()
	for _, n := range []int{0, 1, 10} {
		dir := b.TempDir()
		var cfg strings.Builder
		fmt.Fprintf(&cfg, "[model]\nprovider = \"openai\"\nname = \"gpt-test\"\nbase_url = %q\napi_key_env = \"WASMAGENT_BENCH_NO_KEY\"\n", srv.URL+"/v1")
		for i := range n {
			wasm := append(append([]byte(nil), calc...), 0, 4, 2, 'x', byte('0'+i), 'f')
			name := fmt.Sprintf("calc%d.wasm", i)
			os.WriteFile(filepath.Join(dir, name), wasm, 0o644)
			fmt.Fprintf(&cfg, "[[tool]]\nplugin = %q\nrename = { calc = \"calc%d\" }\npool = 1\n", name, i)
		}
		fmt.Fprintf(&cfg, "[runtime]\ncache_dir = %q\n", filepath.Join(dir, "cache"))
		os.WriteFile(filepath.Join(dir, "agent.toml"), []byte(cfg.String()), 0o644)
		run := func() (time.Duration, error) {
			select {
			case <-first:
			default:
			}
			cmd := exec.Command(binary, "run", "--config", filepath.Join(dir, "agent.toml"), "go")
			var out strings.Builder
			cmd.Stdout, cmd.Stderr = &out, &out
			start := time.Now()
			if err := cmd.Start(); err != nil {
				return 0, err
			}
			var d time.Duration
			select {
			case t := <-first:
				d = t.Sub(start)
			case <-time.After(time.Minute):
			}
			if err := cmd.Wait(); err != nil || d == 0 {
				return 0, fmt.Errorf("%v (first request after %v)\n%s", err, d, out.String())
			}
			return d, nil
		}
		b.Run(fmt.Sprintf("plugins=%d/warm-cache", n), func(b *testing.B) {
			if _, err := run(); err != nil { // warms both caches
				b.Fatal(err)
			}
			var total time.Duration
			b.ResetTimer()
			for b.Loop() {
				d, err := run()
				if err != nil {
					b.Fatal(err)
				}
				total += d
			}
			b.ReportMetric(0, "ns/op")
			b.ReportMetric(float64(total.Nanoseconds())/float64(b.N), "ns/op")
		})
	}
}
