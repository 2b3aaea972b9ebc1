package session

import (
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// BenchmarkDecodeBesidePi: a resume's reading of one large session file
// (realisticSession, 150 turns, some 1.3 MB): reading it, Decode and the current
// branch's View, in MB/s, and pi-coding-agent's SessionManager.open and
// buildSessionContext on the same file, timed by node
// (host/rpc/testdata/node/session_bench.mjs) and logged beside it.
//
//	go test ./host/session -run '^$' -bench DecodeBesidePi -benchtime 3s
func BenchmarkDecodeBesidePi(b *testing.B) {
	data := realisticSession(rand.New(rand.NewPCG(3, 4)), "0190a000-0000-7000-8000-000000000001", "big", 150)
	path := filepath.Join(b.TempDir(), "big.jsonl")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		b.Fatal(err)
	}
	node := filepath.Join("..", "rpc", "testdata", "node")
	if _, err := exec.LookPath("node"); err != nil {
		b.Log("node is not installed: pi's side is not timed")
	} else if _, err := os.Stat(filepath.Join(node, "node_modules", "@mariozechner", "pi-coding-agent")); err != nil {
		b.Log("host/rpc/testdata/node/node_modules is missing (make npm-deps): pi's side is not timed")
	} else {
		cmd := exec.Command("node", "session_bench.mjs", path, "3")
		cmd.Dir = node
		out, err := cmd.CombinedOutput()
		b.Logf("pi's SessionManager.open + buildSessionContext: %s %v", out, err)
	}
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for range b.N {
		data, err := os.ReadFile(path) // pi's is timed from the file too
		if err != nil {
			b.Fatal(err)
		}
		t, err := Decode(data)
		if err != nil {
			b.Fatal(err)
		}
		if v := t.View(t.Leaf()); len(v.Messages) == 0 {
			b.Fatal("no messages")
		}
	}
}
