package cdp

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

func TestBrowser(t *testing.T) {
	path := Find()
	if path == "" {
		t.Skip("no Chromium on PATH (Debian: apt-get install chromium)")
	}
	if testing.Short() {
		t.Skip("starts a browser")
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, `<!doctype html><title>t</title><p id=p>hello</p><script>console.log("said", 42)</script>`)
	}))
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	b, err := Start(ctx, Options{Path: path, UserDataDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	p, err := b.NewPage(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Navigate(ctx, srv.URL); err != nil {
		t.Fatal(err)
	}
	if err := p.WaitFor(ctx, `document.getElementById("p")`, ""); err != nil {
		t.Fatal(err)
	}
	var text string
	if err := p.Eval(ctx, `document.getElementById("p").textContent`, &text); err != nil || text != "hello" {
		t.Fatalf("%q, %v", text, err)
	}
	if err := p.Eval(ctx, `nope.x`, nil); err == nil {
		t.Error("an exception is not an error")
	}
	short, cancelShort := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancelShort()
	if err := p.WaitFor(short, `false`, `document.title`); err == nil {
		t.Error("WaitFor of false returned")
	}
	png, err := p.Screenshot(ctx)
	if err != nil || !bytes.HasPrefix(png, []byte("\x89PNG")) {
		t.Fatalf("screenshot: %v, %.8q", err, png)
	}
	found := false
	for _, l := range p.Log() {
		found = found || l == "console.log: said 42"
	}
	if !found {
		t.Errorf("console not recorded: %q", p.Log())
	}
}
