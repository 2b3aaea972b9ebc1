package web

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"io/fs"
	"net/http"
	"path"
	"strings"
	"time"
)

//go:embed static
var static embed.FS

// ContentSecurityPolicy is sent with every file of the page: scripts,
// styles and connections from the page's own origin only, no inline
// script or style, no plugins, no framing, no form posting elsewhere.
const ContentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; " +
	"img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// contentTypes are the types of the page's files, by extension; a file of
// another kind is not served (TestEveryFileServed keeps the list whole).
var contentTypes = map[string]string{
	".html": "text/html; charset=utf-8",
	".js":   "text/javascript; charset=utf-8",
	".css":  "text/css; charset=utf-8",
}

type file struct {
	body  []byte
	ctype string
	etag  string
}

// Handler serves the page: GET or HEAD of / (index.html) and of each of
// its files, with [ContentSecurityPolicy] and the other security headers;
// 404 for any other path, 405 for any other method. Mount it at the
// server's root (or under a prefix, stripped): the page reaches the API
// by paths relative to itself.
func Handler() http.Handler {
	files := map[string]file{}
	err := fs.WalkDir(static, "static", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		ctype, ok := contentTypes[path.Ext(p)]
		if !ok {
			return nil
		}
		body, err := static.ReadFile(p)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(body)
		files["/"+strings.TrimPrefix(p, "static/")] = file{body, ctype, `"` + hex.EncodeToString(sum[:16]) + `"`}
		return nil
	})
	if err != nil {
		// The files are compiled in; reading them cannot fail.
		panic("web: reading the embedded page: " + err.Error())
	}
	files["/"] = files["/index.html"]
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f, ok := files[r.URL.Path]
		h := w.Header()
		setSecurityHeaders(h)
		if !ok {
			http.Error(w, "404 page not found", http.StatusNotFound)
			return
		}
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			h.Set("Allow", "GET, HEAD")
			http.Error(w, "405 method not allowed", http.StatusMethodNotAllowed)
			return
		}
		h.Set("Content-Type", f.ctype)
		h.Set("ETag", f.etag)
		h.Set("Cache-Control", "no-cache")
		http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(f.body))
	})
}

func setSecurityHeaders(h http.Header) {
	h.Set("Content-Security-Policy", ContentSecurityPolicy)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Cross-Origin-Opener-Policy", "same-origin")
	h.Set("Cross-Origin-Resource-Policy", "same-origin")
}
