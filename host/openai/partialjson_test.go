package openai

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// Every prefix of generated tool-call arguments (and some broken ones)
// has the value pi-ai's own parseStreamingJson gives it, run by node on
// the npm package host/rpc/testdata/node installs (skipped without).
// WASMAGENT_PARTIALJSON_N sets the number of documents (default 40).
func TestStreamingArgsMatchPiAI(t *testing.T) {
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not installed: cannot run pi-ai's parseStreamingJson")
	}
	mods, _ := filepath.Abs(filepath.Join("..", "rpc", "testdata", "node", "node_modules"))
	if _, err := os.Stat(filepath.Join(mods, "@mariozechner", "pi-ai")); err != nil {
		t.Skip("pi-ai is not installed: run `make npm-deps` (npm ci in host/rpc/testdata/node)")
	}
	n := 40
	if s := os.Getenv("WASMAGENT_PARTIALJSON_N"); s != "" {
		fmt.Sscan(s, &n)
	}
	rng := rand.New(rand.NewPCG(uint64(n), 7))
	var inputs []string
	for range n {
		doc := genArgs(rng, 0)
		if rng.IntN(4) == 0 { // a broken one: pi-ai repairs some
			doc = strings.Replace(doc, `"`, "\\q\"", 1) + "\x01"
		}
		for i := 1; i <= len(doc); i++ {
			inputs = append(inputs, doc[:i])
		}
	}
	var in bytes.Buffer
	for _, s := range inputs {
		b, _ := json.Marshal(s)
		in.Write(b)
		in.WriteByte('\n')
	}
	cmd := exec.Command("node", filepath.Join("testdata", "streaming_json.mjs"), mods)
	cmd.Stdin = &in
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node: %v\n%s", err, stderr.Bytes())
	}
	want := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	if len(want) != len(inputs) {
		t.Fatalf("node answered %d of %d", len(want), len(inputs))
	}
	for i, s := range inputs {
		got := streamingArgs([]byte(s))
		var g, w any
		if err := json.Unmarshal(got, &g); err != nil {
			t.Fatalf("%q: we give invalid JSON %s", s, got)
		}
		json.Unmarshal([]byte(want[i]), &w)
		if !reflect.DeepEqual(g, w) {
			t.Fatalf("arguments so far %q:\n ours  %s\n pi-ai %s", s, got, want[i])
		}
	}
}

// genArgs makes a JSON value as a model streams arguments: objects,
// arrays, strings with escapes, numbers, literals.
func genArgs(rng *rand.Rand, depth int) string {
	k := rng.IntN(8)
	if depth == 0 {
		k = 0
	}
	if depth > 2 {
		k = 2 + rng.IntN(6)
	}
	switch k {
	case 0:
		var parts []string
		for i := range rng.IntN(4) {
			parts = append(parts, fmt.Sprintf(`"k%d%s": %s`, i, []string{"", "é", `\"`, "\\n"}[rng.IntN(4)], genArgs(rng, depth+1)))
		}
		return "{" + strings.Join(parts, ", ") + "}"
	case 1:
		var parts []string
		for range rng.IntN(4) {
			parts = append(parts, genArgs(rng, depth+1))
		}
		return "[" + strings.Join(parts, ",") + "]"
	case 2, 3:
		return []string{`"plain"`, `"with \"quote\" and \\ slash"`, `"\u00e9\n\t"`, `"中文 text"`, `""`}[rng.IntN(5)]
	case 4, 5:
		return []string{"0", "-12", "3.25", "1e5", "-0.5e-3", "12345678901234"}[rng.IntN(6)]
	default:
		return []string{"true", "false", "null"}[rng.IntN(3)]
	}
}

// Whatever the bytes, the arguments so far are valid JSON.
func FuzzStreamingArgs(f *testing.F) {
	for _, s := range []string{`{"a":`, `{"a":"b`, `[1,2`, `{"a":tr`, `-`, `{"a\`, "\"\\u12", `{"a":1e`, `[}`, `{a`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got := streamingArgs([]byte(s)); !json.Valid(got) {
			t.Fatalf("%q: %s", s, got)
		}
	})
}
