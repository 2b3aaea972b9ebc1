// Package text_test runs the AssemblyScript plugin text in the real host
// (built with npm and asc; skipped with a message when node is absent).
package text_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/wasmagent/wasmagent/host/wasmtool"
	"github.com/wasmagent/wasmagent/internal/plugintest"
	"github.com/wasmagent/wasmagent/internal/words"
	"github.com/wasmagent/wasmagent/runtime"
)

func load(t *testing.T) *wasmtool.Plugin {
	return plugintest.LoadAS(t, "plugins/text", runtime.Grants{})
}

// call runs a tool with args and returns its text and details.
func call(t *testing.T, p *wasmtool.Plugin, tool string, args any) (string, map[string]any, error) {
	t.Helper()
	b, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	r, err := plugintest.Run(t, p, tool, string(b))
	if err != nil {
		return "", nil, err
	}
	var details map[string]any
	if r.Details != nil {
		d, _ := json.Marshal(r.Details)
		if err := json.Unmarshal(d, &details); err != nil {
			t.Fatalf("details %s: %v", d, err)
		}
	}
	return r.Content.TextOf(), details, nil
}

func TestDescribe(t *testing.T) {
	p := load(t)
	var names []string
	for _, tool := range p.Tools() {
		names = append(names, tool.Info().Name)
	}
	if got := strings.Join(names, " "); got != "count lines find diff" {
		t.Fatalf("tools %q", got)
	}
	if d := p.Description(); d.Name != "text" || d.Version == "" {
		t.Fatalf("description %+v", d)
	}
}

// randomText is lines drawn from a small set, so that texts share lines,
// with and without a final newline, and some non-ASCII text.
func randomText(r *rand.Rand) string {
	words := []string{"alpha", "beta", "gamma", "", "ünïcödé", "😀 emoji", "tab\there", "  spaced  out  ", "\u00a0nbsp"}
	var b strings.Builder
	n := r.IntN(12)
	for i := 0; i < n; i++ {
		b.WriteString(words[r.IntN(len(words))])
		if i < n-1 || r.IntN(2) == 0 {
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// splitLines is the lines of s, each with its newline (the last may lack
// one).
func splitLines(s string) []string {
	l := strings.SplitAfter(s, "\n")
	if l[len(l)-1] == "" {
		l = l[:len(l)-1]
	}
	return l
}

// count agrees with Go's own counting on generated texts.
func TestCount(t *testing.T) {
	p := load(t)
	r := rand.New(rand.NewPCG(1, 19))
	for i := 0; i < 100; i++ {
		text := randomText(r)
		got, d, err := call(t, p, "count", map[string]any{"text": text})
		if err != nil {
			t.Fatal(err)
		}
		lines, ws, chars := len(splitLines(text)), len(strings.Fields(text)), utf8.RuneCountInString(text)
		want := words.Count(lines, "line") + ", " + words.Count(ws, "word") + ", " + words.Count(chars, "character") + ", " + words.Count(len(text), "byte")
		if got != want || d["bytes"] != float64(len(text)) || d["words"] != float64(ws) {
			t.Fatalf("count %q:\n got  %q %v\n want %q", text, got, d, want)
		}
	}
}

func TestLines(t *testing.T) {
	p := load(t)
	text := "one\ntwo\nthree\nfour"
	for _, c := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"text": text, "start": 2, "end": 3}, "two\nthree\n"},
		{map[string]any{"text": text, "start": -2}, "three\nfour"},
		{map[string]any{"text": text, "start": 3, "numbered": true}, "3\tthree\n4\tfour"},
		{map[string]any{"text": text}, text},
	} {
		got, _, err := call(t, p, "lines", c.args)
		if err != nil || got != c.want {
			t.Fatalf("lines %v: %q %v, want %q", c.args, got, err, c.want)
		}
	}
	for _, args := range []map[string]any{
		{"text": text, "start": 5},
		{"text": text, "start": 3, "end": 2},
		{"text": text, "start": 0},
		{"text": ""},
	} {
		if _, _, err := call(t, p, "lines", args); err == nil || !strings.Contains(err.Error(), "lines") {
			t.Fatalf("lines %v: error %v, want one naming the line range", args, err)
		}
	}
	// The schema is the host's to enforce: a word where an integer goes.
	if _, _, err := call(t, p, "lines", map[string]any{"text": text, "start": "two"}); err == nil {
		t.Fatal("start as a word was accepted")
	}
}

// find agrees with a plain Go search on generated texts.
func TestFind(t *testing.T) {
	p := load(t)
	r := rand.New(rand.NewPCG(2, 19))
	queries := []string{"a", "ph", "ü", "😀", "e", " "}
	for i := 0; i < 60; i++ {
		text, q := randomText(r), queries[r.IntN(len(queries))]
		got, d, err := call(t, p, "find", map[string]any{"text": text, "query": q})
		if err != nil {
			t.Fatal(err)
		}
		var want strings.Builder
		n := 0
		for li, line := range splitLines(text) {
			line = strings.TrimSuffix(line, "\n")
			if at := strings.Index(line, q); at >= 0 {
				fmt.Fprintf(&want, "%d:%d: %s\n", li+1, utf8.RuneCountInString(line[:at])+1, line)
				n += strings.Count(line, q)
			}
		}
		if n == 0 {
			want.WriteString("no match for " + q + "\n")
		}
		if got != want.String() || d["count"] != float64(n) {
			t.Fatalf("find %q in %q:\n got  %q (%v)\n want %q (%d)", q, text, got, d["count"], want.String(), n)
		}
	}
	// Lower-casing "İ" gives two characters; the column is still the
	// one in the line as given.
	got, _, err := call(t, p, "find", map[string]any{"text": "İİx ab", "query": "X", "ignoreCase": true})
	if err != nil || got != "1:3: İİx ab\n" {
		t.Fatalf("column after a character whose lower case is longer: %q %v", got, err)
	}
	got, d, err := call(t, p, "find", map[string]any{"text": "Ab\nab\nAB", "query": "aB", "ignoreCase": true, "maxResults": 2})
	if err != nil || got != "1:1: Ab\n2:1: ab\n(stopped after 2 matches)\n" || d["truncated"] != true {
		t.Fatalf("ignoreCase, maxResults: %q %v %v", got, d, err)
	}
}
