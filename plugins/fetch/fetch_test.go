package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/wasmagent/wasmagent/internal/plugintest"
	"github.com/wasmagent/wasmagent/runtime"
	"github.com/wasmagent/wasmagent/sdk/sdktest"
)

const page = `<!doctype html><html><head><title>Release notes</title><style>p{color:red}</style></head>
<body><nav><a href="/">Home</a></nav>
<main><h2>Version 2</h2><p>It is <strong>faster</strong> and <a href="https://example.com/docs">documented</a>.</p>
<ul><li>one</li><li>two <em>items</em></li></ul><ol><li>first</li><li>second</li></ol>
<pre>go run .
  done</pre><table><tr><th>a</th><th>b</th></tr><tr><td>1</td><td>2</td></tr></table>
<p hidden>secret text</p><script>alert(1)</script><div style="display: none">gone</div></main>
<footer>(c) nobody</footer></body></html>`

func TestHTMLToMarkdown(t *testing.T) {
	want := "# Release notes\n\n## Version 2\n\nIt is **faster** and [documented](https://example.com/docs).\n\n- one\n- two *items*\n\n1. first\n2. second\n\n```\ngo run .\n  done\n```\n\n| a | b |\n|---|---|\n| 1 | 2 |\n"
	if got := htmlToMarkdown([]byte(page)); got != want {
		t.Fatalf("markdown:\n%s\nwant:\n%s", got, want)
	}
}

func TestRender(t *testing.T) {
	for _, c := range []struct{ ctype, body, want string }{
		{"application/json; charset=utf-8", `{"a":[1,2]}`, "{\n  \"a\": [\n    1,\n    2\n  ]\n}"},
		{"application/problem+json", `{"x":1}`, "{\n  \"x\": 1\n}"},
		{"application/json", `{broken`, `{broken`},
		{"text/plain", "just text", "just text"},
		{"application/octet-stream", "\xff\xfe\x00\x01", "(application/octet-stream, 4 bytes of binary data not shown)"},
		{"application/octet-stream", "\xff", "(application/octet-stream, 1 byte of binary data not shown)"},
		{"image/png", strings.Repeat("\xff", 1234), "(image/png, 1,234 bytes of binary data not shown)"},
		{"", "<!DOCTYPE html><p>hi</p>", "hi\n"},
	} {
		if got := render(c.ctype, []byte(c.body), false); got != c.want {
			t.Errorf("%s %q: %q, want %q", c.ctype, c.body, got, c.want)
		}
	}
}

func server(t *testing.T) *httptest.Server {
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/page":
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprint(w, page)
		case "/api":
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, `{"ok":true}`)
		case "/long":
			w.Header().Set("Content-Type", "text/plain")
			fmt.Fprint(w, strings.Repeat("é", 100))
		case "/big":
			w.Header().Set("Content-Type", "text/plain")
			w.Write([]byte(strings.Repeat("x", 5<<20)))
		case "/missing":
			http.NotFound(w, r)
		default:
			http.Redirect(w, r, r.URL.Query().Get("to"), http.StatusFound)
		}
	}))
	t.Cleanup(s.Close)
	return s
}

func TestFetchNative(t *testing.T) {
	s := server(t)
	h := sdktest.Host{HTTP: sdktest.NetHTTP(nil)}
	r, err := h.Execute("fetch", map[string]any{"url": s.URL + "/api"})
	if err != nil || r.Content[0].Text != "{\n  \"ok\": true\n}" {
		t.Fatalf("api: %+v %v", r, err)
	}
	d := r.Details.(map[string]any)
	if d["status"] != 200.0 || d["contentType"] != "application/json" || d["url"] != s.URL+"/api" {
		t.Fatalf("details: %v", d)
	}
	r, err = h.Execute("fetch", map[string]any{"url": s.URL + "/long", "maxChars": 10})
	if err != nil || r.Content[0].Text != strings.Repeat("é", 10)+"\n\n[truncated: 10 of 100 characters shown; ask again with a larger maxChars]" {
		t.Fatalf("long: %+v %v", r, err)
	}
	if _, err := h.Execute("fetch", map[string]any{"url": s.URL + "/missing"}); err == nil || !strings.Contains(err.Error(), "answered 404 Not Found") {
		t.Fatalf("404: %v", err)
	}
	if _, err := h.Execute("fetch", map[string]any{"url": "ftp://example.com"}); err == nil || !strings.Contains(err.Error(), "not an http or https URL") {
		t.Fatalf("ftp: %v", err)
	}
}

// Through the real host: only granted hosts, redirects checked, the byte
// cap enforced, the final URL reported.
func TestFetchThroughTheHost(t *testing.T) {
	s, other := server(t), server(t)
	u, _ := url.Parse(s.URL)
	p := plugintest.Load(t, "plugins/fetch", runtime.Grants{Hosts: []string{u.Host}, MaxHTTPResponseBytes: 1 << 20})
	r, err := plugintest.Execute(t, p, "fetch", `{"url":"`+s.URL+`/page"}`)
	if err != nil || !strings.HasPrefix(r.Content.TextOf(), "# Release notes\n\n## Version 2") {
		t.Fatalf("page: %v %v", r, err)
	}
	r, err = plugintest.Execute(t, p, "fetch", `{"url":"`+s.URL+`/go?to=`+url.QueryEscape(s.URL+"/api")+`"}`)
	if err != nil || fmt.Sprint(r.Details) == "" || !strings.Contains(string(mustJSON(r.Details)), `"url":"`+s.URL+`/api"`) {
		t.Fatalf("redirect within the grant: %v %v", r, err)
	}
	for _, c := range []struct{ url, want string }{
		{other.URL + "/page", "is not allowed: the plugin's granted hosts are " + u.Host},
		{s.URL + "/go?to=" + url.QueryEscape(other.URL+"/page"), "is not allowed"},
		{s.URL + "/big", "over the plugin's limit of 1048576 bytes"},
	} {
		if _, err := plugintest.Execute(t, p, "fetch", `{"url":"`+c.url+`"}`); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.url, err, c.want)
		}
	}
}

func mustJSON(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}
