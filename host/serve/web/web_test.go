package web

import (
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path"
	"regexp"
	"strings"
	"testing"

	"golang.org/x/net/html"
)

func get(t *testing.T, h http.Handler, method, target string, header ...string) *http.Response {
	t.Helper()
	req := httptest.NewRequest(method, target, nil)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec.Result()
}

// diskFiles lists the page's files as they are in the source tree, so
// that a file added without its type, or missing from the embed, fails.
func diskFiles(t *testing.T) []string {
	t.Helper()
	var out []string
	err := fs.WalkDir(os.DirFS("static"), ".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			out = append(out, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(out) == 0 {
		t.Fatal("no files under static/")
	}
	return out
}

func TestEveryFileServed(t *testing.T) {
	h := Handler()
	for _, p := range diskFiles(t) {
		want, ok := contentTypes[path.Ext(p)]
		if !ok {
			t.Errorf("static/%s: no content type for %q files in contentTypes: it would not be served", p, path.Ext(p))
			continue
		}
		res := get(t, h, "GET", "/"+p)
		if res.StatusCode != 200 {
			t.Errorf("GET /%s: %d", p, res.StatusCode)
		}
		if got := res.Header.Get("Content-Type"); got != want {
			t.Errorf("GET /%s: Content-Type %q, want %q", p, got, want)
		}
		body, _ := os.ReadFile("static/" + p)
		if n := res.ContentLength; n != int64(len(body)) && n != -1 {
			t.Errorf("GET /%s: %d bytes, the file has %d", p, n, len(body))
		}
	}
	root := get(t, h, "GET", "/")
	if root.StatusCode != 200 || root.Header.Get("Content-Type") != contentTypes[".html"] {
		t.Errorf("GET /: %d %q, want the page", root.StatusCode, root.Header.Get("Content-Type"))
	}
}

func TestSecurityHeadersOnEveryResponse(t *testing.T) {
	h := Handler()
	targets := []string{"/", "/index.html", "/app.js", "/style.css", "/nope", "/../web.go", "/static/index.html"}
	for _, p := range targets {
		for _, m := range []string{"GET", "HEAD", "POST"} {
			res := get(t, h, m, p)
			if got := res.Header.Get("Content-Security-Policy"); got != ContentSecurityPolicy {
				t.Errorf("%s %s: CSP %q", m, p, got)
			}
			if res.Header.Get("X-Content-Type-Options") != "nosniff" {
				t.Errorf("%s %s: no nosniff", m, p)
			}
			if res.Header.Get("Access-Control-Allow-Origin") != "" {
				t.Errorf("%s %s: CORS header sent", m, p)
			}
		}
	}
}

func TestPolicyIsStrict(t *testing.T) {
	directives := map[string]string{}
	for _, d := range strings.Split(ContentSecurityPolicy, ";") {
		f := strings.Fields(d)
		if len(f) == 0 {
			continue
		}
		directives[f[0]] = strings.Join(f[1:], " ")
	}
	want := map[string]string{
		"default-src": "'none'", "script-src": "'self'", "style-src": "'self'", "connect-src": "'self'",
		"base-uri": "'none'", "form-action": "'none'", "frame-ancestors": "'none'",
	}
	for k, v := range want {
		if directives[k] != v {
			t.Errorf("%s is %q, want %q", k, directives[k], v)
		}
	}
	for _, bad := range []string{"unsafe-inline", "unsafe-eval", "unsafe-hashes", "*", "data:", "http:", "https:", "blob:"} {
		for k, v := range directives {
			for _, src := range strings.Fields(v) {
				if strings.Trim(src, "'") == bad || src == bad {
					t.Errorf("%s allows %s", k, bad)
				}
			}
		}
	}
}

func TestMethodsAndPaths(t *testing.T) {
	h := Handler()
	cases := []struct {
		method, target string
		status         int
	}{
		{"GET", "/", 200},
		{"HEAD", "/", 200},
		{"GET", "/index.html", 200},
		{"POST", "/", 405},
		{"DELETE", "/app.js", 405},
		{"GET", "/missing.js", 404},
		{"GET", "/static/app.js", 404},
		{"GET", "/web.go", 404},
		{"GET", "/app.js/", 404},
		{"GET", "/%2e%2e/web.go", 404},
	}
	for _, c := range cases {
		res := get(t, h, c.method, c.target)
		if res.StatusCode != c.status {
			t.Errorf("%s %s: %d, want %d", c.method, c.target, res.StatusCode, c.status)
		}
		if c.status == 405 && res.Header.Get("Allow") != "GET, HEAD" {
			t.Errorf("%s %s: Allow %q", c.method, c.target, res.Header.Get("Allow"))
		}
	}
}

func TestETag(t *testing.T) {
	h := Handler()
	res := get(t, h, "GET", "/app.js")
	tag := res.Header.Get("ETag")
	if tag == "" {
		t.Fatal("no ETag")
	}
	if res := get(t, h, "GET", "/app.js", "If-None-Match", tag); res.StatusCode != http.StatusNotModified {
		t.Errorf("If-None-Match the ETag: %d, want 304", res.StatusCode)
	}
	if other := get(t, h, "GET", "/style.css").Header.Get("ETag"); other == tag {
		t.Errorf("two files share the ETag %s", tag)
	}
}

// TestNoInlineScriptOrStyle parses the page: every script is an external
// module of the page's own, no element has an event handler or a style
// attribute, and every reference stays on the server.
func TestNoInlineScriptOrStyle(t *testing.T) {
	f, err := os.Open("static/index.html")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc, err := html.Parse(f)
	if err != nil {
		t.Fatal(err)
	}
	scripts := 0
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode {
			attrs := map[string]string{}
			for _, a := range n.Attr {
				attrs[a.Key] = a.Val
				if strings.HasPrefix(a.Key, "on") {
					t.Errorf("<%s %s>: an inline event handler", n.Data, a.Key)
				}
				if a.Key == "style" {
					t.Errorf("<%s style>: an inline style", n.Data)
				}
				if (a.Key == "src" || a.Key == "href") && !local(a.Val) {
					t.Errorf("<%s %s=%q>: not a file of this server", n.Data, a.Key, a.Val)
				}
			}
			switch n.Data {
			case "script":
				scripts++
				if attrs["src"] == "" || n.FirstChild != nil {
					t.Errorf("an inline <script>")
				}
				if attrs["type"] != "module" {
					t.Errorf("<script src=%q> is not a module", attrs["src"])
				}
			case "style":
				t.Errorf("an inline <style>")
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	if scripts == 0 {
		t.Error("the page loads no script")
	}
}

func local(ref string) bool {
	return !strings.Contains(ref, ":") && !strings.HasPrefix(ref, "//")
}

var (
	htmlRef   = regexp.MustCompile(`(?:src|href)="([^"#]+)"`)
	importRef = regexp.MustCompile(`(?m)^\s*import\b[^'"]*['"]([^'"]+)['"]`)
)

// TestReferencesResolve: every file the page or a module names is served,
// and every served file is named by something (nothing dead, nothing
// missing).
func TestReferencesResolve(t *testing.T) {
	h := Handler()
	named := map[string]bool{"index.html": true}
	for _, p := range diskFiles(t) {
		b, err := os.ReadFile("static/" + p)
		if err != nil {
			t.Fatal(err)
		}
		var refs [][]string
		switch path.Ext(p) {
		case ".html":
			refs = htmlRef.FindAllStringSubmatch(string(b), -1)
		case ".js":
			refs = importRef.FindAllStringSubmatch(string(b), -1)
		}
		for _, r := range refs {
			ref := strings.TrimPrefix(r[1], "./")
			if !local(ref) || strings.Contains(ref, "/") {
				t.Errorf("%s names %q: not a file of the page", p, r[1])
				continue
			}
			named[ref] = true
			if res := get(t, h, "GET", "/"+ref); res.StatusCode != 200 {
				t.Errorf("%s names %q: GET gives %d", p, r[1], res.StatusCode)
			}
		}
	}
	for _, p := range diskFiles(t) {
		if !named[p] {
			t.Errorf("static/%s is served but nothing uses it", p)
		}
	}
}

// TestNoMarkupFromText: the scripts never turn text into markup; text
// goes into the page through textContent, text nodes and attributes.
func TestNoMarkupFromText(t *testing.T) {
	banned := regexp.MustCompile(`\.innerHTML|\.outerHTML|insertAdjacentHTML|document\.write|\beval\(|new Function|createContextualFragment|DOMParser|setHTMLUnsafe|srcdoc`)
	for _, p := range diskFiles(t) {
		if path.Ext(p) != ".js" {
			continue
		}
		b, err := os.ReadFile("static/" + p)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(b), "\n") {
			if m := banned.FindString(line); m != "" {
				t.Errorf("static/%s:%d: %s", p, i+1, m)
			}
		}
	}
}
