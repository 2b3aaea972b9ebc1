package main_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	wconfig "github.com/wasmagent/wasmagent/host/config"
	"github.com/wasmagent/wasmagent/internal/wasmbuild"
)

// Wiring a configuration of 1 and 10 Go plugins in process, caches warm:
// every plugin loaded and described before Wire returns (foreground, as
// `config validate` does), against descriptions from the cache with the
// plugins loading behind (background, as `run` does). The op ends when
// Wire returns, that is when the first model request can go out; the
// background loads are waited for off the clock.
//
//	go test ./cmd/wasmagent -run '^$' -bench ColdStartWire -count 3
func BenchmarkColdStartWire(b *testing.B) {
	calc, err := os.ReadFile(wasmbuild.ForTest(b, "plugins/calc"))
	if err != nil {
		b.Fatal(err)
	}
	for _, n := range []int{1, 10} {
		dir := b.TempDir()
		var cfg strings.Builder
		cfg.WriteString("[model]\nprovider = \"scripted\"\nscript = \"script.json\"\n")
		for i := range n {
			wasm := append(append([]byte(nil), calc...), 0, 4, 2, 'x', byte('0'+i), 'w')
			name := fmt.Sprintf("calc%d.wasm", i)
			os.WriteFile(filepath.Join(dir, name), wasm, 0o644)
			fmt.Fprintf(&cfg, "[[tool]]\nplugin = %q\nrename = { calc = \"calc%d\" }\npool = 1\n", name, i)
		}
		fmt.Fprintf(&cfg, "[runtime]\ncache_dir = %q\n", filepath.Join(dir, "cache"))
		os.WriteFile(filepath.Join(dir, "script.json"), []byte(`{"turns":[{"content":"done"}]}`), 0o644)
		path := filepath.Join(dir, "agent.toml")
		os.WriteFile(path, []byte(cfg.String()), 0o644)
		wire := func(b *testing.B, background bool) {
			f, err := wconfig.Load(path)
			if err != nil {
				b.Fatal(err)
			}
			s, err := f.Wire(context.Background(), wconfig.WireOptions{Background: background})
			if err != nil {
				b.Fatal(err)
			}
			b.StopTimer()
			if err := s.Wait(context.Background()); err != nil {
				b.Fatal(err)
			}
			s.Close()
			b.StartTimer()
		}
		for _, mode := range []string{"foreground", "background"} {
			b.Run(fmt.Sprintf("plugins=%d/%s", n, mode), func(b *testing.B) {
				b.StopTimer()
				wire(b, false) // warms both caches
				b.StartTimer()
				for b.Loop() {
					wire(b, mode == "background")
				}
			})
		}
	}
}
