package main_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmagent/wasmagent/internal/wasmbuild"
)

// Cold start: a new wasmagent process, from start to its first tool result
// and the end of a one-turn scripted session, with 1 and 10 Go plugins,
// with an empty and with a warm compilation cache.
//
//	go test ./cmd/wasmagent -run '^$' -bench ColdStart -count 3
func BenchmarkColdStart(b *testing.B) {
	calc, err := os.ReadFile(wasmbuild.ForTest(b, "plugins/calc"))
	if err != nil {
		b.Fatal(err)
	}
	for _, n := range []int{1, 10} {
		dir := b.TempDir()
		var cfg strings.Builder
		cfg.WriteString("[model]\nprovider = \"scripted\"\nscript = \"script.json\"\n")
		for i := range n {
			// Each copy differs by a custom section, so each compiles.
			wasm := append(append([]byte(nil), calc...), 0, 4, 2, 'x', byte('0'+i), 'p')
			name := fmt.Sprintf("calc%d.wasm", i)
			os.WriteFile(filepath.Join(dir, name), wasm, 0o644)
			fmt.Fprintf(&cfg, "[[tool]]\nplugin = %q\nrename = { calc = \"calc%d\" }\npool = 1\n", name, i)
		}
		os.WriteFile(filepath.Join(dir, "script.json"), []byte(`{"turns":[{"content":[{"type":"toolCall","id":"c","name":"calc0","arguments":{"expression":"1+1"}}]},{"content":"2"}]}`), 0o644)
		for _, cache := range []string{"empty", "warm"} {
			b.Run(fmt.Sprintf("plugins=%d/%s-cache", n, cache), func(b *testing.B) {
				cacheDir := filepath.Join(dir, "cache")
				if cache == "warm" {
					writeConfig(b, dir, cfg.String(), cacheDir)
					runOnce(b, dir)
				}
				for b.Loop() {
					if cache == "empty" {
						b.StopTimer()
						os.RemoveAll(cacheDir)
						writeConfig(b, dir, cfg.String(), cacheDir)
						b.StartTimer()
					}
					runOnce(b, dir)
				}
			})
		}
	}
}

func writeConfig(b *testing.B, dir, cfg, cacheDir string) {
	os.WriteFile(filepath.Join(dir, "agent.toml"), []byte(cfg+fmt.Sprintf("[runtime]\ncache_dir = %q\n", cacheDir)), 0o644)
}

func runOnce(b *testing.B, dir string) {
	out, err := exec.Command(binary, "run", "--config", filepath.Join(dir, "agent.toml"), "go").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "✓ calc0") {
		b.Fatalf("%v\n%s", err, out)
	}
}
