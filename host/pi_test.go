package host_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmagent/wasmagent/host/hosttest"
)

// TestMatchesPi compares every golden event stream of ours with the one
// pi-agent-core 0.73.1 produced for the same scenario (testdata/pi, made by
// `make golden-pi` from record.mjs), after normalizeGoldenLine.
func TestMatchesPi(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "pi", "*.jsonl"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no pi goldens: %v", err)
	}
	for _, piFile := range files {
		name := strings.TrimSuffix(filepath.Base(piFile), ".jsonl")
		t.Run(name, func(t *testing.T) {
			want := normalizedLines(t, piFile)
			got := normalizedLines(t, filepath.Join("testdata", name+".jsonl"))
			if i, g, w, differ := hosttest.FirstDiff(got, want); differ {
				t.Fatalf("event %d differs from pi\n ours: %s\n   pi: %s", i+1, g, w)
			}
		})
	}
}

func normalizedLines(t *testing.T, path string) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, line := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
		n, err := normalizeGoldenLine(line)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		out = append(out, n)
	}
	return out
}
