package runtime_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmagent/wasmagent/internal/syncbuf"
	"github.com/wasmagent/wasmagent/internal/wasmbuild"
	"github.com/wasmagent/wasmagent/runtime"
)

func TestConfigValues(t *testing.T) {
	p := probe(t, runtime.Grants{Config: map[string]string{"greeting": "hello"}}, 0)
	if r, err := execute(context.Background(), p, "config", map[string]any{"key": "greeting"}, nil); err != nil || text(r) != "hello" {
		t.Fatalf("granted key: %q %v", text(r), err)
	}
	if r, err := execute(context.Background(), p, "config", map[string]any{"key": "HOME"}, nil); err != nil || text(r) != "HOME is not set" {
		t.Fatalf("key not granted: %q %v", text(r), err)
	}
}

// syncBuffer is a bytes.Buffer safe to read while the command writes.
type syncBuffer = syncbuf.Buffer

// Plugin log lines reach the Runtime's logger, labelled with the plugin,
// filtered by the grant's level.
func TestLogging(t *testing.T) {
	var buf syncBuffer
	r, err := runtime.New(context.Background(), runtime.Options{CacheDir: testCacheDir(t), Logger: slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close(context.Background())
	m, err := r.CompileFile(context.Background(), wasmbuild.ForTest(t, "internal/testplugins/probe"))
	if err != nil {
		t.Fatal(err)
	}
	for _, level := range []string{"info", "error"} {
		p, err := r.NewPlugin(m, runtime.PluginOptions{Name: "logger-" + level, Grants: runtime.Grants{LogLevel: level, Config: map[string]string{"k": "v"}}})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := execute(context.Background(), p, "config", map[string]any{"key": "k"}, nil); err != nil {
			t.Fatal(err)
		}
		p.Close()
	}
	out := buf.String()
	if !strings.Contains(out, `msg="config k=\"v\"" plugin=logger-info`) {
		t.Fatalf("info line missing from the log:\n%s", out)
	}
	if strings.Contains(out, "plugin=logger-error") {
		t.Fatalf("an info line passed a plugin whose level is error:\n%s", out)
	}
}

func TestUpdates(t *testing.T) {
	p := probe(t, runtime.Grants{}, 0)
	var got []string
	opts := &runtime.CallOptions{OnUpdate: func(b []byte) error { got = append(got, string(b)); return nil }}
	if _, err := execute(context.Background(), p, "updates", map[string]any{"n": 3}, opts); err != nil {
		t.Fatal(err)
	}
	want := []string{`{"content":[{"type":"text","text":"step 1"}]}`, `{"content":[{"type":"text","text":"step 2"}]}`, `{"content":[{"type":"text","text":"step 3"}]}`}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("updates = %q", got)
	}
	// An update the host refuses fails the call.
	opts = &runtime.CallOptions{OnUpdate: func([]byte) error { return errors.New("not now") }}
	if _, err := execute(context.Background(), p, "updates", map[string]any{"n": 1}, opts); err == nil || !strings.Contains(err.Error(), "emit_update: not now") {
		t.Fatalf("err = %v", err)
	}
}

func TestDirectories(t *testing.T) {
	ro, rw, outside := t.TempDir(), t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(ro, "a.txt"), []byte("read me"), 0o644)
	os.WriteFile(filepath.Join(outside, "secret.txt"), []byte("secret"), 0o644)
	p := probe(t, runtime.Grants{Dirs: []runtime.Dir{{Host: ro, Guest: "/data"}, {Host: rw, Guest: "/out", Write: true}}}, 0)
	ctx := context.Background()
	if r, err := execute(ctx, p, "read", map[string]any{"path": "/data/a.txt"}, nil); err != nil || text(r) != "read me" {
		t.Fatalf("read granted file: %q %v", text(r), err)
	}
	// Refused as a kernel would say it (EROFS), not "Not implemented on
	// wasip1" (wazero's ENOSYS): the plugin can name the grant.
	if _, err := execute(ctx, p, "write", map[string]any{"path": "/data/new.txt", "text": "x"}, nil); err == nil || !strings.Contains(err.Error(), "Read-only file system") {
		t.Fatalf("write to a read-only directory: err = %v, want Read-only file system", err)
	}
	if _, err := execute(ctx, p, "write", map[string]any{"path": "/out/new.txt", "text": "written"}, nil); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(rw, "new.txt")); string(b) != "written" {
		t.Fatalf("rw file = %q", b)
	}
	for _, path := range []string{filepath.Join(outside, "secret.txt"), "/data/../../" + filepath.Join(outside, "secret.txt"), "/etc/passwd"} {
		if r, err := execute(ctx, p, "read", map[string]any{"path": path}, nil); err == nil {
			t.Errorf("read %s outside the grants: %q", path, text(r))
		}
	}
}

func TestDirectoryGrantErrors(t *testing.T) {
	m := compile(t, "internal/testplugins/probe")
	file := filepath.Join(t.TempDir(), "f")
	os.WriteFile(file, nil, 0o644)
	for _, c := range []struct {
		dirs []runtime.Dir
		want string
	}{
		{[]runtime.Dir{{Host: "/no/such/dir", Guest: "/x"}}, "no such file"},
		{[]runtime.Dir{{Host: file, Guest: "/x"}}, "not a directory"},
		{[]runtime.Dir{{Host: t.TempDir(), Guest: "relative"}}, "must be absolute"},
		{[]runtime.Dir{{Host: t.TempDir(), Guest: "/x"}, {Host: t.TempDir(), Guest: "/x/"}}, "granted twice"},
	} {
		_, err := rt(t).NewPlugin(m, runtime.PluginOptions{Grants: runtime.Grants{Dirs: c.dirs}})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: err = %v, want %q", c.dirs, err, c.want)
		}
	}
}

func TestHTTP(t *testing.T) {
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "other server") }))
	defer other.Close()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/redirect":
			http.Redirect(w, r, other.URL+"/", http.StatusFound)
		case "/big":
			w.Write(bytes.Repeat([]byte("b"), 2<<20))
		default:
			fmt.Fprint(w, "hello from ", r.URL.Path)
		}
	}))
	defer srv.Close()
	u, _ := url.Parse(srv.URL)
	p := probe(t, runtime.Grants{Hosts: []string{u.Host}, MaxHTTPResponseBytes: 1 << 20}, 0)
	ctx := context.Background()
	if r, err := execute(ctx, p, "fetch", map[string]any{"url": srv.URL + "/x"}, nil); err != nil || text(r) != "200 hello from /x" {
		t.Fatalf("granted host: %q %v", text(r), err)
	}
	for _, c := range []struct{ url, want string }{
		{other.URL, "not allowed"},
		{srv.URL + "/redirect", "not allowed"},
		{srv.URL + "/big", "over the plugin's limit of 1048576 bytes"},
		{"file:///etc/passwd", "only http and https"},
	} {
		r, err := execute(ctx, p, "fetch", map[string]any{"url": c.url}, nil)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("fetch %s: %q, err = %v, want %q", c.url, text(r), err, c.want)
		}
	}
	none := probe(t, runtime.Grants{}, 0)
	if _, err := execute(ctx, none, "fetch", map[string]any{"url": srv.URL}, nil); err == nil || !strings.Contains(err.Error(), "granted hosts are none") {
		t.Errorf("no hosts granted: err = %v", err)
	}
}

// A granted name or pattern does not open the host's own network: the
// address actually connected to must be public unless the grants name it.
func TestPrivateAddressesNeedTheirOwnGrant(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "inside") }))
	defer srv.Close()
	u, _ := url.Parse(srv.URL)
	port := u.Port()
	ctx := context.Background()
	// "*:port" allows the URL, but 127.0.0.1 is not granted as such.
	p := probe(t, runtime.Grants{Hosts: []string{"*:" + port}}, 0)
	if _, err := execute(ctx, p, "fetch", map[string]any{"url": srv.URL}, nil); err == nil || !strings.Contains(err.Error(), "refused to connect to 127.0.0.1") {
		t.Fatalf("wildcard to loopback: %v", err)
	}
	// localhost granted by name reaches loopback.
	p = probe(t, runtime.Grants{Hosts: []string{"localhost:" + port}}, 0)
	if r, err := execute(ctx, p, "fetch", map[string]any{"url": "http://localhost:" + port}, nil); err != nil || text(r) != "200 inside" {
		t.Fatalf("localhost: %q %v", text(r), err)
	}
}

// Credentials are added by the host to requests to their host only,
// redirects included; the plugin never holds them.
func TestCredentials(t *testing.T) {
	echo := func(w http.ResponseWriter, r *http.Request) { fmt.Fprintf(w, "auth=%q", r.Header.Get("Authorization")) }
	other := httptest.NewServer(http.HandlerFunc(echo))
	defer other.Close()
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/away" {
			http.Redirect(w, r, other.URL+"/", http.StatusFound)
			return
		}
		echo(w, r)
	}))
	defer api.Close()
	au, _ := url.Parse(api.URL)
	ou, _ := url.Parse(other.URL)
	p := probe(t, runtime.Grants{
		Hosts:       []string{au.Host, ou.Host},
		Credentials: []runtime.Credential{{Host: au.Host, Header: "Authorization", Value: "Bearer s3cret"}},
	}, 0)
	ctx := context.Background()
	if r, err := execute(ctx, p, "fetch", map[string]any{"url": api.URL + "/"}, nil); err != nil || text(r) != `200 auth="Bearer s3cret"` {
		t.Fatalf("to the credential's host: %q %v", text(r), err)
	}
	if r, err := execute(ctx, p, "fetch", map[string]any{"url": api.URL + "/away"}, nil); err != nil || text(r) != `200 auth=""` {
		t.Fatalf("redirected elsewhere: %q %v", text(r), err)
	}
	if r, err := execute(ctx, p, "fetch", map[string]any{"url": other.URL + "/"}, nil); err != nil || text(r) != `200 auth=""` {
		t.Fatalf("to another host: %q %v", text(r), err)
	}
	if _, err := rt(t).NewPlugin(compile(t, "internal/testplugins/probe"), runtime.PluginOptions{Grants: runtime.Grants{
		Credentials: []runtime.Credential{{Host: "api.github.com", Header: "Authorization", Value: "x"}},
	}}); err == nil || !strings.Contains(err.Error(), "the host is not granted") {
		t.Fatalf("credential for an ungranted host: %v", err)
	}
}
