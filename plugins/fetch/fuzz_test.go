package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// Any body, of any content type, renders without a panic to valid UTF-8;
// HTML keeps no script text and no HTML comment.
func FuzzRender(f *testing.F) {
	f.Add("text/html", []byte(page))
	f.Add("text/html", []byte("<p>An <i>unclosed<ul><li>x</ul><pre>a<b>b</pre><table><tr><td>1<td>2</table>"))
	f.Add("", []byte("<!doctype html><script>SECRET-SCRIPT</script><p>\xff\xfe</p>"))
	f.Add("application/json", []byte(`{"a":[1,2]}`))
	if b, err := os.ReadFile(filepath.Join("testdata", "pages", "edge-cases.html")); err == nil {
		f.Add("text/html; charset=utf-8", b)
	}
	f.Fuzz(func(t *testing.T, ctype string, body []byte) {
		out := render(ctype, body, false)
		if !utf8.ValidString(out) {
			t.Fatalf("not UTF-8: %q", out)
		}
		if strings.HasPrefix(ctype, "text/html") {
			if strings.Contains(out, "<!--THE END-->") {
				t.Fatalf("a list-end comment is left: %q", out)
			}
			if strings.Count(string(body), "SECRET-SCRIPT") == 1 && strings.Contains(string(body), "<script>SECRET-SCRIPT</script>") && strings.Contains(out, "SECRET-SCRIPT") {
				t.Fatalf("script text shown: %q", out)
			}
		}
	})
}
