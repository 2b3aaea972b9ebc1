package runtime_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/wasmagent/wasmagent/internal/wasmbuild"
	"github.com/wasmagent/wasmagent/runtime"
)

// requestModule's export "request" passes its input, as it is, to
// http_request as the request's JSON, and returns success.
func requestModule() []byte {
	I64 := wasmbuild.I64
	return wasmbuild.Module{
		Imports: []wasmbuild.Import{
			{Module: "extism:host/env", Name: "input_offset", Func: wasmbuild.Func{Results: []byte{I64}}},
			{Module: "extism:host/env", Name: "http_request", Func: wasmbuild.Func{Params: []byte{I64, I64}, Results: []byte{I64}}},
		},
		Funcs:   []wasmbuild.Func{{Results: []byte{wasmbuild.I32}, Body: ops(call(0), i64c(0), call(1), opDrop, i32c(0))}},
		Exports: map[string]uint32{"request": 2},
	}.Encode()
}

// headersRequest is an http_request JSON for u of at least size bytes:
// a map of empty headers, the cheapest in the JSON for what each costs
// the host decoded.
func headersRequest(u string, size int) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, `{"url":%q,"headers":{`, u)
	for i := 0; b.Len() < size; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"h%d":""`, i)
	}
	b.WriteString("}}")
	return []byte(b.String())
}

// A request's JSON (URL, method, headers) over runtime.MaxHTTPRequestBytes
// is refused before it is decoded, whatever the grants: on the old main
// 16 MiB of empty headers, sent by a plugin granted no host at all, were
// decoded into a map and copied into a request (189 MiB of Go heap and
// about 3 s, in one host step nothing interrupts) before the URL was
// judged. One just under the cap is decoded and judged.
func TestHTTPRequestJSONIsBounded(t *testing.T) {
	if runtime.RaceEnabled {
		t.Skip("the race detector's allocations are not what the bound is about")
	}
	const size = 16 << 20
	p := pluginOf(t, "request.wasm", requestModule(), runtime.PluginOptions{Grants: runtime.Grants{MemoryPages: 1024, MaxInputBytes: 2 * size}})
	big := headersRequest("http://not-granted.example/", size)
	var err error
	got := allocatedBy(func() { _, err = p.Call(context.Background(), "request", big, nil) })
	t.Logf("a request of %d MiB: %d MiB of Go heap allocated by the call", len(big)>>20, got>>20)
	if err == nil || !strings.Contains(err.Error(), "runtime.MaxHTTPRequestBytes") {
		t.Fatalf("a request of %d bytes: err = %v, want a refusal naming runtime.MaxHTTPRequestBytes", len(big), err)
	}
	if bound := uint64(len(big)) + 8<<20; got > bound {
		t.Fatalf("the call allocated %d MiB, over %d MiB (the input and a little)", got>>20, bound>>20)
	}
	small := headersRequest("http://not-granted.example/", runtime.MaxHTTPRequestBytes-64)
	if _, err := p.Call(context.Background(), "request", small, nil); err == nil || !strings.Contains(err.Error(), "not allowed") {
		t.Fatalf("a request of %d bytes: err = %v, want the URL judged (not allowed)", len(small), err)
	}
}

// A response whose headers pass runtime.MaxHTTPResponseHeaderBytes fails
// the request, saying so; below it, it is read. On the old main Go's
// default allowed 10 MiB of headers per response, counted against no
// cap (the body's, MaxHTTPResponseBytes, does not see them).
func TestHTTPResponseHeadersAreBounded(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		kb, _ := strconv.Atoi(r.URL.Query().Get("kb"))
		v := strings.Repeat("v", 1000)
		for i := range kb {
			w.Header().Set("X-H"+strconv.Itoa(i), v)
		}
		fmt.Fprint(w, "ok")
	}))
	defer srv.Close()
	u, _ := url.Parse(srv.URL)
	p := pluginOf(t, "request.wasm", requestModule(), runtime.PluginOptions{Grants: runtime.Grants{Hosts: []string{u.Host}}})
	req := func(kb int) []byte { return []byte(fmt.Sprintf(`{"url":"%s/?kb=%d"}`, srv.URL, kb)) }
	under := runtime.MaxHTTPResponseHeaderBytes/1024 - 16
	if _, err := p.Call(context.Background(), "request", req(under), nil); err != nil {
		t.Fatalf("%d headers of 1 KB: %v", under, err)
	}
	over := runtime.MaxHTTPResponseHeaderBytes/1024 + 16
	_, err := p.Call(context.Background(), "request", req(over), nil)
	if err == nil || !strings.Contains(err.Error(), "headers exceeded") || !errors.Is(err, runtime.ErrTrap) {
		t.Fatalf("%d headers of 1 KB: err = %v, want the headers refused", over, err)
	}
}

// A grant of an internal address, or of localhost, opens that address on
// the grant's port only, whatever name leads there: with
// "127.0.0.1:PORT_A" granted beside "*:PORT_B", a name that resolves to
// 127.0.0.1 (here "localhost") reaches nothing on PORT_B. On the old main
// the dialer judged the address alone, and the plugin reached the
// server on PORT_B; beside "*", 127.0.0.1's ports 80 and 443.
func TestInternalGrantIsPortBound(t *testing.T) {
	serve := func(text string) (*httptest.Server, string) {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, text) }))
		u, _ := url.Parse(srv.URL)
		return srv, u.Port()
	}
	a, portA := serve("granted")
	defer a.Close()
	b, portB := serve("not granted")
	defer b.Close()
	for _, granted := range []string{"127.0.0.1:" + portA, "localhost:" + portA} {
		p := pluginOf(t, "request.wasm", requestModule(), runtime.PluginOptions{Grants: runtime.Grants{Hosts: []string{granted, "*:" + portB}}})
		req := func(u string) error {
			_, err := p.Call(context.Background(), "request", []byte(fmt.Sprintf(`{"url":%q}`, u)), nil)
			return err
		}
		if err := req("http://" + granted + "/"); err != nil {
			t.Fatalf("grants %s and *:%s: the granted address: %v", granted, portB, err)
		}
		if err := req("http://localhost:" + portB + "/"); err == nil || !strings.Contains(err.Error(), "refused to connect to") {
			t.Fatalf("grants %s and *:%s: loopback on port %s: err = %v, want the connection refused", granted, portB, portB, err)
		}
	}
}
