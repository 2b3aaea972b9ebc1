package text_test

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/wasmagent/wasmagent/internal/words"
)

// Every message of the text tools that counts something agrees with the
// count, in the host's words (internal/words): "1 lines, 1 words, 1
// characters, 1 bytes" and "the text's 1 lines" were written with the noun
// in the plural for one. Counts 0, 1, 2, a few and over a thousand (the
// thousands separator) are generated for each.
func TestCountsInWords(t *testing.T) {
	p := load(t)
	says := func(what, got string, n int, noun string) {
		t.Helper()
		want := words.Count(n, noun)
		if !regexp.MustCompile(`(^|[^0-9,])` + regexp.QuoteMeta(want) + `\b`).MatchString(got) {
			t.Errorf("%s with %d: %q does not say %q", what, n, got[max(0, len(got)-160):], want)
		}
	}
	for _, n := range []int{0, 1, 2, 7, 1234} {
		// n lines of one word of one character each: n lines, n words,
		// 2n characters and bytes (the newlines count).
		text := strings.Repeat("x\n", n)
		got, _, err := call(t, p, "count", map[string]any{"text": text})
		if err != nil {
			t.Fatal(err)
		}
		says("count", got, n, "line")
		says("count", got, n, "word")
		says("count", got, 2*n, "character")
		says("count", got, 2*n, "byte")
		one, _, err := call(t, p, "count", map[string]any{"text": strings.Repeat("é", n)}) // n characters of 2 bytes
		if err != nil {
			t.Fatal(err)
		}
		says("count", one, n, "character")
		says("count", one, 2*n, "byte")
		if n == 0 {
			continue
		}
		_, _, err = call(t, p, "lines", map[string]any{"text": text, "start": n + 1})
		says("lines past the end", fmt.Sprint(err), n, "line")
		_, _, err = call(t, p, "lines", map[string]any{"text": text, "start": 1, "end": n + 1})
		says("lines past the end", fmt.Sprint(err), n, "line")
		got, _, err = call(t, p, "find", map[string]any{"text": text + "x\n", "query": "x", "maxResults": n})
		if err != nil {
			t.Fatal(err)
		}
		says("find", got, n, "match|matches")
	}
}
