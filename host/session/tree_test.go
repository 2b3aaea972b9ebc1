package session_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/wasmagent/wasmagent/host/session"
)

// Files whose entries form no tree — parents that form cycles (a
// self-parent too), parents that are missing, ids used twice, compactions
// keeping an entry off their branch — load, and every entry's branch
// holds each entry once and ends; generated over many shapes
// (WASMAGENT_TREE_N sets how many).
func TestBrokenTreesLoad(t *testing.T) {
	n := 300
	if v := os.Getenv("WASMAGENT_TREE_N"); v != "" {
		fmt.Sscan(v, &n)
	}
	ids := []string{"a", "b", "c", "d", "e"}
	for seed := range n {
		r := rand.New(rand.NewPCG(uint64(seed), 11))
		var b strings.Builder
		fmt.Fprintf(&b, `{"type":"session","version":%d,"id":"s","timestamp":"2026-12-01T10:00:00.000Z","cwd":"/p"}`+"\n", 2+r.IntN(2))
		for i := range 1 + r.IntN(8) {
			id := ids[r.IntN(len(ids))]
			parent := "null"
			switch r.IntN(4) {
			case 0:
			case 1:
				parent = `"zz"`
			default:
				parent = `"` + ids[r.IntN(len(ids))] + `"`
			}
			if r.IntN(5) == 0 {
				fmt.Fprintf(&b, `{"type":"compaction","id":%q,"parentId":%s,"timestamp":"2026-12-01T10:00:01.000Z","summary":"S","firstKeptEntryId":%q,"tokensBefore":1}`+"\n", id, parent, ids[r.IntN(len(ids))])
				continue
			}
			fmt.Fprintf(&b, `{"type":"message","id":%q,"parentId":%s,"timestamp":"2026-12-01T10:00:01.000Z","message":{"role":"user","content":"m%d","timestamp":1}}`+"\n", id, parent, i)
		}
		tr, err := session.Decode([]byte(b.String()))
		if err != nil {
			t.Fatalf("seed %d: %v\n%s", seed, err, b.String())
		}
		for _, leaf := range append([]string{tr.Leaf(), "zz", ""}, ids...) {
			path := tr.Branch(leaf)
			seen := map[string]bool{}
			for _, e := range path {
				if seen[e.ID] {
					t.Fatalf("seed %d: the branch to %q holds %s twice\n%s", seed, leaf, e.ID, b.String())
				}
				seen[e.ID] = true
			}
			if v := tr.View(leaf); len(v.Messages) > len(path)+1 {
				t.Fatalf("seed %d: %d messages from a branch of %d entries", seed, len(v.Messages), len(path))
			}
		}
	}
}
