package text_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/wasmagent/wasmagent/host/wasmtool"
	"github.com/wasmagent/wasmagent/internal/plugintest"
	"github.com/wasmagent/wasmagent/internal/wasmbuild"
	"github.com/wasmagent/wasmagent/internal/words"
)

// apply applies a unified diff to a, checking every context and removed
// line against a, and returns the result.
func apply(a, diff string) (string, error) {
	if diff == "" {
		return a, nil
	}
	src := splitLines(a)
	lines := strings.SplitAfter(diff, "\n")
	if len(lines) < 2 || !strings.HasPrefix(lines[0], "--- ") || !strings.HasPrefix(lines[1], "+++ ") {
		return "", fmt.Errorf("no header: %q", diff)
	}
	hunk := regexp.MustCompile(`^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@\n$`)
	var out []string
	next := 0 // the next line of src to copy
	for i := 2; i < len(lines) && lines[i] != ""; {
		m := hunk.FindStringSubmatch(lines[i])
		if m == nil {
			return "", fmt.Errorf("line %d: not a hunk header: %q", i, lines[i])
		}
		start, _ := strconv.Atoi(m[1])
		count := 1
		if m[2] != "" {
			count, _ = strconv.Atoi(m[2])
		}
		if count > 0 {
			start-- // 1-based; an empty range names the line before
		}
		if start < next {
			return "", fmt.Errorf("hunk at %d overlaps", start)
		}
		out = append(out, src[next:start]...)
		next = start
		i++
		for ; i < len(lines) && lines[i] != "" && !strings.HasPrefix(lines[i], "@@"); i++ {
			l := lines[i]
			noNL := i+1 < len(lines) && lines[i+1] == "\\ No newline at end of file\n"
			body := l[1:]
			if noNL {
				body = strings.TrimSuffix(body, "\n")
			}
			switch l[0] {
			case ' ', '-':
				if next >= len(src) || src[next] != body {
					return "", fmt.Errorf("line %d: %q does not match the source's %d", i, l, next)
				}
				if l[0] == ' ' {
					out = append(out, body)
				}
				next++
			case '+':
				out = append(out, body)
			default:
				return "", fmt.Errorf("line %d: %q", i, l)
			}
			if noNL {
				i++
			}
		}
	}
	out = append(out, src[next:]...)
	return strings.Join(out, ""), nil
}

// lcs is the length of the longest common subsequence of the lines.
func lcs(a, b []string) int {
	prev := make([]int, len(b)+1)
	for i := range a {
		cur := make([]int, len(b)+1)
		for j := range b {
			if a[i] == b[j] {
				cur[j+1] = prev[j] + 1
			} else {
				cur[j+1] = max(prev[j+1], cur[j])
			}
		}
		prev = cur
	}
	return prev[len(b)]
}

// For generated pairs of texts, the diff applied to a gives b, and it is
// minimal: it adds and removes no more lines than the longest common
// subsequence leaves.
func TestDiffProperties(t *testing.T) {
	p := load(t)
	r := rand.New(rand.NewPCG(3, 19))
	for i := 0; i < 150; i++ {
		a, b := randomText(r), randomText(r)
		if r.IntN(3) == 0 { // a small edit of a
			b = strings.Replace(a, "beta", "BETA", 1) + randomText(r)
		}
		ctx := r.IntN(4)
		got, d, err := call(t, p, "diff", map[string]any{"a": a, "b": b, "context": ctx})
		if err != nil {
			t.Fatal(err)
		}
		patched, err := apply(a, got)
		if err != nil || patched != b {
			t.Fatalf("diff of %q and %q (context %d):\n%s\napplied: %q, %v", a, b, ctx, got, patched, err)
		}
		al, bl := splitLines(a), splitLines(b)
		common := lcs(al, bl)
		if d["removed"] != float64(len(al)-common) || d["added"] != float64(len(bl)-common) || d["minimal"] != true {
			t.Fatalf("diff of %q and %q: %v, want %d removed, %d added", a, b, d, len(al)-common, len(bl)-common)
		}
		if (a == b) != (got == "") {
			t.Fatalf("diff of %q and %q: %q", a, b, got)
		}
	}
}

// The same output as GNU diff -u on a fixed case, header names included.
func TestDiffFormat(t *testing.T) {
	p := load(t)
	got, _, err := call(t, p, "diff", map[string]any{
		"a": "a\nb\nc\nd\ne\nf\ng\nh\ni\nj\n", "b": "a\nB\nc\nd\ne\nf\ng\nh\ni\nj\nk",
		"aName": "old.txt", "bName": "new.txt",
	})
	want := "--- old.txt\n+++ new.txt\n@@ -1,5 +1,5 @@\n a\n-b\n+B\n c\n d\n e\n@@ -8,3 +8,4 @@\n h\n i\n j\n+k\n\\ No newline at end of file\n"
	if err != nil || got != want {
		t.Fatalf("got %q, %v\nwant %q", got, err, want)
	}
}

// Inputs too different for a minimal diff in bounded memory still give a
// correct one, marked as not minimal.
func TestDiffLarge(t *testing.T) {
	p := load(t)
	var a, b strings.Builder
	for i := 0; i < 5000; i++ {
		fmt.Fprintf(&a, "a%d\n", i)
		fmt.Fprintf(&b, "b%d\n", i)
	}
	got, d, err := call(t, p, "diff", map[string]any{"a": a.String(), "b": b.String(), "context": 0})
	if err != nil {
		t.Fatal(err)
	}
	if patched, err := apply(a.String(), got); err != nil || patched != b.String() {
		t.Fatalf("the large diff does not apply: %v", err)
	}
	if d["minimal"] != false || d["added"] != float64(5000) {
		t.Fatalf("details %v", d)
	}
}

// Texts of megabytes, as a model may pass whole files: a diff of two
// 30000-line texts that differ in two lines is two hunks, and counting
// 4 MiB works within the default grants.
func TestLargeTexts(t *testing.T) {
	p := load(t)
	var a strings.Builder
	for i := 0; i < 30000; i++ {
		fmt.Fprintf(&a, "line %d of the text with some words\n", i)
	}
	b := strings.Replace(a.String(), "line 15000 ", "LINE 15000 ", 1)
	b = strings.Replace(b, "line 29999 of the text with some words\n", "the end", 1)
	got, d, err := call(t, p, "diff", map[string]any{"a": a.String(), "b": b})
	if err != nil {
		t.Fatal(err)
	}
	if patched, err := apply(a.String(), got); err != nil || patched != b {
		t.Fatalf("the diff does not apply: %v", err)
	}
	if d["hunks"] != float64(2) || d["added"] != float64(2) || d["removed"] != float64(2) || d["minimal"] != true {
		t.Fatalf("details %v", d)
	}
	big := strings.Repeat(a.String(), 4)
	text, _, err := call(t, p, "count", map[string]any{"text": big})
	if want := "120,000 lines, 960,000 words, " + words.Count(len(big), "character") + ", " + words.Count(len(big), "byte"); err != nil || text != want {
		t.Fatalf("count: %q %v, want %q", text, err, want)
	}
}

// For any pair of texts, the diff applies back and is minimal.
func FuzzDiff(f *testing.F) {
	f.Add("a\nb\nc\n", "a\nc\nd", 3)
	f.Add("", "x", 0)
	f.Add("same\n", "same\n", 1)
	f.Add("a\r\nb", "a\nb\r\n", 2)
	if testing.Short() {
		f.Skip("builds and runs the plugin in the host")
	}
	p, err := wasmtool.Load(context.Background(), plugintest.Runtime(f), wasmbuild.ASForTest(f, "plugins/text"), wasmtool.Options{})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(p.Close)
	f.Fuzz(func(t *testing.T, a, b string, lines int) {
		if !utf8.ValidString(a) || !utf8.ValidString(b) {
			t.Skip("JSON arguments carry only UTF-8")
		}
		lines = min(max(lines, 0), 1000)
		got, d, err := call(t, p, "diff", map[string]any{"a": a, "b": b, "context": lines})
		if err != nil {
			t.Fatal(err)
		}
		if patched, err := apply(a, got); err != nil || patched != b {
			t.Fatalf("diff of %q and %q (context %d):\n%s\napplied: %q, %v", a, b, lines, got, patched, err)
		}
		al, bl := splitLines(a), splitLines(b)
		if common := lcs(al, bl); d["minimal"] == true && (d["removed"] != float64(len(al)-common) || d["added"] != float64(len(bl)-common)) {
			t.Fatalf("diff of %q and %q is not minimal: %v, LCS %d", a, b, d, common)
		}
	})
}
