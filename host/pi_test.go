package host_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/wasmagent/wasmagent/host/hosttest"
)

// TestMatchesPi compares every golden event stream of ours with the one
// pi-agent-core 0.73.1 produced for the same scenario (testdata/pi, made by
// `make golden-pi` from record.mjs). What may differ is removed first:
// timestamps, usage and model labels (the faux provider estimates usage and
// randomises its api name), the partial messages of message_update (faux
// mutates them after emitting, docs/loop.md 5.6), and the per-error lines of
// validation messages, whose wording comes from the validator (docs/loop.md 15.4).
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
		var v map[string]any
		if err := json.Unmarshal(line, &v); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if v["type"] == "message_update" {
			ev := v["assistantMessageEvent"].(map[string]any)
			delete(ev, "partial")
			v = map[string]any{"type": "message_update", "assistantMessageEvent": ev}
		}
		b, _ := json.Marshal(normalize(v))
		out = append(out, string(b))
	}
	return out
}

var validationLines = regexp.MustCompile(`(?s)^(Validation failed for tool "[^"]*":\n).*(\n\nReceived arguments:\n.*)$`)

func normalize(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for _, k := range []string{"timestamp", "usage", "api", "provider", "model"} {
			delete(x, k)
		}
		for k, val := range x {
			x[k] = normalize(val)
		}
		return x
	case []any:
		for i := range x {
			x[i] = normalize(x[i])
		}
		return x
	case string:
		return validationLines.ReplaceAllString(x, "$1  - …$2")
	}
	return v
}
