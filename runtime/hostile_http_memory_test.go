package runtime_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/wasmagent/wasmagent/internal/wasmbuild"
	"github.com/wasmagent/wasmagent/runtime"
)

// postModule's export "post" copies its input into a block of its own
// and sends it as the body of an http_request whose JSON is the input
// too; it returns the response body.
func postModule() []byte {
	const (
		fInput = iota
		fLength
		fAlloc
		fLoad
		fStore
		fRequest
		fOutput
	)
	I32, I64 := wasmbuild.I32, wasmbuild.I64
	env := func(name string, params, results []byte) wasmbuild.Import {
		return wasmbuild.Import{Module: "extism:host/env", Name: name, Func: wasmbuild.Func{Params: params, Results: results}}
	}
	const req, n, body, i = 0, 1, 2, 3
	copyLoop := ops(
		i64c(0), lset(i),
		[]byte{0x02, 0x40, 0x03, 0x40},             // block, loop
		lget(i), lget(n), []byte{0x5a, 0x0d, 0x01}, // i >= n: br_if 1
		lget(body), lget(i), []byte{0x7c}, // body+i
		lget(req), lget(i), []byte{0x7c}, call(fLoad),
		call(fStore),
		lget(i), i64c(1), []byte{0x7c}, lset(i),
		[]byte{0x0c, 0x00, 0x0b, 0x0b}, // br 0, end, end
	)
	return wasmbuild.Module{
		Imports: []wasmbuild.Import{
			env("input_offset", nil, []byte{I64}),
			env("length", []byte{I64}, []byte{I64}),
			env("alloc", []byte{I64}, []byte{I64}),
			env("load_u8", []byte{I64}, []byte{I32}),
			env("store_u8", []byte{I64, I32}, nil),
			env("http_request", []byte{I64, I64}, []byte{I64}),
			env("output_set", []byte{I64, I64}, nil),
		},
		Funcs: []wasmbuild.Func{{Results: []byte{I32}, Locals: []byte{I64, I64, I64, I64}, Body: ops(
			call(fInput), lset(req),
			lget(req), call(fLength), lset(n),
			lget(n), call(fAlloc), lset(body),
			copyLoop,
			lget(req), lget(body), call(fRequest), lset(body),
			lget(body), lget(body), call(fLength), call(fOutput),
			i32c(0),
		)}},
		Exports: map[string]uint32{"post": 7},
	}.Encode()
}

// A response body is counted against the plugin's host memory as it is
// read: one that cannot fit there ends the call with the MemoryPages
// CapError once it passes the grant, after little more than the grant
// was read, with or without a Content-Length. On the old main the body
// was read whole into the Go heap, up to MaxHTTPResponseBytes (here
// 64 MiB, for a host memory of 2 MiB), growing a slice by copies, and
// only then refused: 157 MiB allocated per request, 100 requests a
// call. (The allocations are checked without -race only: the race
// detector's are not what the bound is about.)
func TestHTTPResponseCountsAgainstMemory(t *testing.T) {
	const size = 64 << 20
	chunk := bytes.Repeat([]byte("r"), 64<<10)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("length") != "" {
			w.Header().Set("Content-Length", strconv.Itoa(size))
		}
		for n := 0; n < size; n += len(chunk) {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	}))
	defer srv.Close()
	u, _ := url.Parse(srv.URL)
	const pages = 32 // 2 MiB of host memory
	p := pluginOf(t, "request.wasm", requestModule(), runtime.PluginOptions{Grants: runtime.Grants{
		Hosts: []string{u.Host}, MemoryPages: pages, MaxHTTPResponseBytes: 2 * size}})
	for _, q := range []string{"", "?length=1"} {
		var err error
		got := allocatedBy(func() {
			_, err = p.Call(context.Background(), "request", []byte(fmt.Sprintf(`{"url":"%s/%s"}`, srv.URL, q)), nil)
		})
		t.Logf("a response of %d MiB (%q) to a plugin of %d pages: %d MiB of Go heap allocated by the call: %v", size>>20, q, pages, got>>20, err)
		var ce *runtime.CapError
		if !errors.As(err, &ce) || ce.Cap != "MemoryPages" || !strings.Contains(err.Error(), "http_request") {
			t.Fatalf("%q: err = %v, want the MemoryPages cap of http_request", q, err)
		}
		if bound := uint64(pages<<16) + 8<<20; got > bound && !runtime.RaceEnabled {
			t.Fatalf("%q: the call allocated %d MiB, over %d MiB (the host memory and a little)", q, got>>20, bound>>20)
		}
	}
}

// A request body is read from the plugin's block where it lies, and sent
// again whole on a 307 redirect; responses within the grant arrive
// whole, the last byte included. A HEAD's Content-Length is no body to
// count: HEAD tells a size past the grant.
func TestHTTPBodyInPlace(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodHead {
			w.Header().Set("Content-Length", strconv.Itoa(1<<30))
			return
		}
		if r.URL.Path == "/redirect" {
			http.Redirect(w, r, "/echo", http.StatusTemporaryRedirect)
			return
		}
		b, _ := io.ReadAll(r.Body)
		if r.ContentLength != int64(len(b)) {
			http.Error(w, fmt.Sprintf("Content-Length %d for %d bytes", r.ContentLength, len(b)), 400)
			return
		}
		w.Write(b)
	}))
	defer srv.Close()
	u, _ := url.Parse(srv.URL)
	head := pluginOf(t, "request.wasm", requestModule(), runtime.PluginOptions{Grants: runtime.Grants{Hosts: []string{u.Host}, MemoryPages: 16}})
	if _, err := head.Call(context.Background(), "request", []byte(fmt.Sprintf(`{"url":"%s/","method":"HEAD"}`, srv.URL)), nil); err != nil {
		t.Fatalf("HEAD, Content-Length 1 GiB: %v", err)
	}
	p := pluginOf(t, "post.wasm", postModule(), runtime.PluginOptions{Grants: runtime.Grants{Hosts: []string{u.Host}}})
	for _, path := range []string{"/echo", "/redirect"} {
		for _, pad := range []int{0, 100, 20000} {
			in := []byte(fmt.Sprintf(`{"url":"%s%s","method":"POST","headers":{"x":%q}}`, srv.URL, path, strings.Repeat("p", pad)))
			out, err := p.Call(context.Background(), "post", in, nil)
			if err != nil {
				t.Fatalf("%s, %d bytes: %v", path, len(in), err)
			}
			if !bytes.Equal(out, in) {
				t.Fatalf("%s, %d bytes: the echo is %d bytes, not the body sent", path, len(in), len(out))
			}
		}
	}
}
