package main

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/wasmagent/wasmagent/internal/words"
)

// Every message of the tools that counts something agrees with the count,
// whatever it is: "[stopped at 1 matching lines]", "(1 bytes)", "has 1
// lines" were written with the noun in the plural for one. The counts
// generated are 0, 1, 2 and two drawn at random; each message is checked
// for the words words.Count gives (so "1 line" and not "1 lines").
func TestCountsInWords(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	counts := []int{0, 1, 2, 3 + r.IntN(20), 3 + r.IntN(300)}
	says := func(what, got string, n int, noun string) {
		t.Helper()
		want := words.Count(n, noun)
		if !regexp.MustCompile(`(^|[^0-9,])` + regexp.QuoteMeta(want) + `\b`).MatchString(got) {
			t.Errorf("%s with %d: %q does not say %q", what, n, got[max(0, len(got)-160):], want)
		}
	}
	for _, n := range counts {
		// write: the bytes written; read of a binary file: its size.
		dir, h := workspace(t, nil)
		got := run(t, h, "write", map[string]any{"path": "w.txt", "content": strings.Repeat("x", n)})
		says("write", got, n, "byte")
		if n > 0 {
			os.WriteFile(filepath.Join(dir, "bin.dat"), []byte(strings.Repeat("\x00", n)), 0o644)
			_, err := h.Execute("read", map[string]any{"path": "bin.dat"})
			says("read of a binary file", fmt.Sprint(err), n, "byte")
			// read past the end of a file of n lines.
			os.WriteFile(filepath.Join(dir, "lines.txt"), []byte(strings.Repeat("line\n", n)), 0o644)
			says("read past the end", run(t, h, "read", map[string]any{"path": "lines.txt", "offset": n + 5}), n, "line")
		}
		if n >= 2 {
			// edit of a text found n times.
			os.WriteFile(filepath.Join(dir, "edit.txt"), []byte(strings.Repeat("same\n", n)), 0o644)
			_, err := h.Execute("edit", map[string]any{"path": "edit.txt", "oldText": "same", "newText": "other"})
			says("edit", fmt.Sprint(err), n, "time")
		}
		if n == 0 {
			continue
		}
		// ls, find and grep stopped by a limit: n entries more than the
		// limit of 1, and a limit of n.
		d := filepath.Join(dir, "many")
		os.Mkdir(d, 0o755)
		for i := range n + 1 {
			os.WriteFile(filepath.Join(d, fmt.Sprintf("f%04d.txt", i)), []byte("match\n"), 0o644)
		}
		says("ls", run(t, h, "ls", map[string]any{"path": "many", "limit": 1}), n, "more entry|more entries")
		says("find", run(t, h, "find", map[string]any{"path": "many", "pattern": "*.txt", "limit": n}), n, "result")
		says("grep", run(t, h, "grep", map[string]any{"path": "many", "pattern": "match", "limit": n}), n, "matching line")
	}
}

// A walk's progress updates grow with the logarithm of its size, not its
// size: whatever the size of the tree (generated up to 10^12 entries), it
// reports at fewer than 18 × ln(n / 3200) + 24 counts, each later than
// the last and no more than 200 + n/16 after it, so it never nears a
// grant's max_updates (default 10,000) and still reports at least every
// sixteenth of the way. A walk of a real tree reports at the counts
// progressStep gives.
func TestProgressStaysUnderTheUpdateCap(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 11))
	for i := 0; i < 200; i++ {
		size := 1 + int(r.Int64N(1_000_000_000_000))
		if i < 4 {
			size = []int{1, 199, 200, 2_000_000}[i]
		}
		updates := 0
		for n := progressStep(0); n <= size; {
			next := progressStep(n)
			if next <= n || next-n > 200+n/16 {
				t.Fatalf("after %d the next report is at %d", n, next)
			}
			updates++
			n = next
		}
		bound := 24 + 18*math.Log(math.Max(1, float64(size)/3200))
		if float64(updates) >= bound || updates > 10_000 {
			t.Fatalf("a walk of %d entries sends %d updates (bound %.0f)", size, updates, bound)
		}
	}

	// Through the tool: a tree of 1,000 files reports at 200, 400, ... 1,000.
	files := map[string]string{}
	for i := 0; i < 1000; i++ {
		files[fmt.Sprintf("d%d/f%d.txt", i%10, i)] = "x"
	}
	_, h := workspace(t, files)
	run(t, h, "find", map[string]any{"pattern": "**/*.go"})
	var got []string
	for _, u := range h.Updates() {
		if s := string(u); strings.Contains(s, "scanned") {
			got = append(got, s)
		}
	}
	if len(got) != 5 || !strings.Contains(got[0], "scanned 200 entries") || !strings.Contains(got[4], "scanned 1,000 entries") {
		t.Fatalf("updates of a walk of 1,010 entries: %q", got)
	}
}
