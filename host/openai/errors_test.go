package openai_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/wasmagent/wasmagent/host"
	"github.com/wasmagent/wasmagent/host/openai"
	"github.com/wasmagent/wasmagent/host/openai/openaitest"
)

// answer serves one fixed answer; in its body, KEY stands for the bearer
// token the request carried (a server that echoes the key).
func answer(status int, ctype, body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		if ctype != "" {
			w.Header().Set("Content-Type", ctype)
		}
		w.WriteHeader(status)
		io.WriteString(w, strings.ReplaceAll(body, "KEY", strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")))
	}
}

// Every way a request can fail gives a text that names what happened in
// plain words and the request (method and URL), and never the API key:
// not from the URL, not from a server that echoes it. Each case runs with
// several generated keys.
func TestErrorClasses(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	down := "http://" + l.Addr().String()
	l.Close()
	sse := "text/event-stream"
	cut := string((&openaitest.Stream{}).Text("Hello").Bytes())
	huge := func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", sse)
		chunk := strings.Repeat(": padding\n", 1000)
		for range 2000 { // 20 MB, past the 1 MiB cap below
			if _, err := io.WriteString(w, chunk); err != nil {
				return
			}
		}
	}
	cases := []struct {
		name   string
		url    string // the base_url; "" uses the handler's server
		handle http.HandlerFunc
		want   []string
		tls    bool
	}{
		{"connection refused", down, nil, []string{"connection refused: nothing listens at " + strings.TrimPrefix(down, "http://")}, false},
		{"DNS failure", "http://no-such-host.invalid", nil, []string{`cannot resolve the host name "no-such-host.invalid"`}, false},
		{"TLS to plain HTTP", "", answer(200, sse, ""), []string{"TLS handshake", "plain HTTP, not HTTPS"}, true},
		{"redirect loop", "", func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, r.URL.Path, http.StatusTemporaryRedirect)
		}, []string{"redirected too many times (a redirect loop)"}, false},
		{"redirect to another origin", "", func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, "https://elsewhere.invalid/v1/chat/completions?key=KEY", http.StatusMovedPermanently)
		}, []string{"redirected to https://elsewhere.invalid/v1/chat/completions?key=REDACTED, another origin"}, false},
		{"redirect followed", "", func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodPost {
				http.Redirect(w, r, "/v2/chat", http.StatusFound)
				return
			}
			answer(405, "", "")(w, r)
		}, []string{"405 Method Not Allowed: no body", "/v1/chat/completions, redirected to GET http://REDACTED@127.0.0.1:"}, false},
		{"closed before answering", "", func(w http.ResponseWriter, r *http.Request) {
			conn, _, err := w.(http.Hijacker).Hijack()
			if err == nil {
				conn.Close()
			}
		}, []string{"closed the connection before answering"}, false},
		{"401 OpenAI error", "", answer(401, "application/json", `{"error":{"message":"Incorrect API key provided: KEY","type":"invalid_request_error","code":"invalid_api_key"}}`), []string{"401 Unauthorized: Incorrect API key provided: [api key]"}, false},
		{"403 no body", "", answer(403, "", ""), []string{"403 Forbidden: no body"}, false},
		{"404 HTML", "", answer(404, "text/html", "<h1>Not Found</h1><p>KEY</p>"), []string{`404 Not Found: the body is text/html, not the API's JSON error: "<h1>Not Found</h1>`}, false},
		{"404 of 10 MB", "", answer(404, "text/html", "<h1>gone</h1>"+strings.Repeat("x", 10<<20)), []string{`404 Not Found: the body is text/html, not the API's JSON error: "<h1>gone</h1>xxx`}, false},
		{"404 Ollama", "", answer(404, "application/json", `{"error":"model \"m\" not found, try pulling it first"}`), []string{`404 Not Found: model "m" not found, try pulling it first`}, false},
		{"405 plain text", "", answer(405, "text/plain", "Method Not Allowed"), []string{`405 Method Not Allowed: the body is text/plain, not the API's JSON error: "Method Not Allowed"`}, false},
		{"413 no body", "", answer(413, "", ""), []string{"413 Request Entity Too Large: no body"}, false},
		{"422 FastAPI", "", answer(422, "application/json", `{"detail":[{"loc":["body","model"],"msg":"field required","type":"value_error"}]}`), []string{"422 Unprocessable Entity: field required"}, false},
		{"429 OpenAI error", "", answer(429, "application/json", `{"error":{"message":"Rate limit reached"}}`), []string{"429 Too Many Requests: Rate limit reached"}, false},
		{"500 no body", "", answer(500, "", ""), []string{"500 Internal Server Error: no body"}, false},
		{"502 HTML", "", answer(502, "text/html; charset=utf-8", "<html><body>Bad gateway\x1b[31m</body></html>"), []string{`502 Bad Gateway: the body is text/html, not the API's JSON error: "<html><body>Bad gateway[31m`}, false},
		{"503 JSON of another shape", "", answer(503, "application/json", `{"status":"down"}`), []string{`503 Service Unavailable: "{\"status\":\"down\"}"`}, false},
		{"200 HTML", "", answer(200, "text/html", "<html>KEY welcome</html>"), []string{`the server answered 200 OK with text/html, not an event stream: "<html>[api key] welcome</html>"`}, false},
		{"200 whole completion", "", answer(200, "application/json", `{"id":"x","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"hi"},"finish_reason":"stop"}]}`), []string{`one whole completion (application/json), not an event stream: it ignored "stream": true`}, false},
		{"200 error JSON", "", answer(200, "application/json", `{"error":{"message":"quota exceeded"}}`), []string{"the server answered 200 OK with an error instead of an event stream: quota exceeded"}, false},
		{"200 empty", "", answer(200, sse, ""), []string{"the server answered 200 OK with an empty body, not an event stream"}, false},
		{"204 no content", "", answer(204, "", ""), []string{"the server answered 204 No Content with an empty body"}, false},
		{"events not JSON", "", answer(200, sse, "data: hello KEY\n\n"), []string{`the server's first event is not valid JSON (invalid character 'h'`, `"data: hello [api key]"`}, false},
		{"events not JSON after chunks", "", answer(200, sse, cut+"data: {oops\n\n"), []string{"after 1 chunk, the server sent an event that is not valid JSON"}, false},
		{"stream without chunks", "", answer(200, sse, ": just a comment\n\ndata: [DONE]\n\n"), []string{`the event stream ended before any chunk came: ": just a comment`}, false},
		{"stream cut", "", answer(200, sse, cut), []string{"the stream ended before the model finished (no finish reason came; the response was cut off)"}, false},
		{"error event", "", answer(200, sse, cut+`data: {"error":{"message":"overloaded KEY"}}`+"\n\n"), []string{"the server failed during the stream: overloaded [api key]"}, false},
		{"body too large", "", huge, []string{"the model's response is larger than the host accepts: more than 1,048,576 bytes streamed (model.max_response_bytes)"}, false},
	}
	rng := rand.New(rand.NewPCG(1, 2))
	var asked atomic.Int32
	defer func() {
		if asked.Load() == 0 {
			t.Error("the DNS failure was not the loopback DNS server's answer")
		}
	}()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			base := c.url
			if c.handle != nil {
				srv := httptest.NewServer(c.handle)
				defer srv.Close()
				base = srv.URL
				if c.tls {
					base = strings.Replace(base, "http://", "https://", 1)
				}
			}
			for range 3 {
				key := generatedKey(rng)
				// The key in the URL's user info too (openai-go drops a
				// base_url's query string).
				u := strings.Replace(base, "://", "://user:"+key+"@", 1) + "/v1"
				m := model(t, u, func(o *openai.Options) {
					o.APIKey, o.Retries, o.MaxResponseBytes = key, -1, 1<<20
					o.HTTPClient = loopbackDNS(t, &asked)
				})
				msg, _ := stream(t, m, context.Background(), hello)
				text := msg.ErrorMessage
				if msg.StopReason != host.StopReasonError {
					t.Fatalf("stop %s, error %q", msg.StopReason, text)
				}
				if strings.Contains(text, key) || strings.Contains(text, key[:len(key)-1]) {
					t.Fatalf("the key %q leaks: %s", key, text)
				}
				for _, w := range c.want {
					if !strings.Contains(text, w) {
						t.Fatalf("error %q\nwant it to say %q", text, w)
					}
				}
				where := "(POST " + strings.Replace(base, "://", "://REDACTED@", 1) + "/v1/chat/completions"
				if !strings.Contains(text, where) {
					t.Fatalf("error %q\nwant it to name the request %q", text, where)
				}
				for _, r := range text {
					if r < 0x20 || r == 0x7f {
						t.Fatalf("error %q has a control character", text)
					}
				}
			}
		})
	}
}

// generatedKey is an API key as providers make them: a prefix and 20 to
// 60 characters of letters, digits, - and _.
func generatedKey(rng *rand.Rand) string {
	const chars = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_"
	b := []byte([]string{"sk-", "sk-proj-", "gsk_", ""}[rng.IntN(4)])
	for range 20 + rng.IntN(41) {
		b = append(b, chars[rng.IntN(len(chars))])
	}
	return string(b)
}

// A request that gets no answer in time says it timed out, with the
// configured timeout, and where.
func TestErrorTimeout(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		<-release
	}))
	defer srv.Close()
	defer close(release)
	m := model(t, srv.URL+"/v1", func(o *openai.Options) { o.Timeout, o.Retries = 50*time.Millisecond, -1 })
	msg, _ := stream(t, m, context.Background(), hello)
	want := fmt.Sprintf("the request timed out after 50ms with no answer (model.timeout) (POST %s/v1/chat/completions)", srv.URL)
	if msg.StopReason != host.StopReasonError || msg.ErrorMessage != want {
		t.Fatalf("stop %s, error %q\nwant %q", msg.StopReason, msg.ErrorMessage, want)
	}
}

// After retries, the text says how many attempts were made.
func TestErrorAttempts(t *testing.T) {
	srv := httptest.NewServer(answer(503, "application/json", `{"error":{"message":"busy"}}`))
	defer srv.Close()
	srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After-Ms", "1")
		answer(503, "application/json", `{"error":{"message":"busy"}}`)(w, r)
	})
	m := model(t, srv.URL+"/v1", func(o *openai.Options) { o.Retries = 2 })
	msg, _ := stream(t, m, context.Background(), hello)
	want := fmt.Sprintf("503 Service Unavailable: busy (POST %s/v1/chat/completions, 3 attempts)", srv.URL)
	if msg.ErrorMessage != want {
		t.Fatalf("error %q\nwant %q", msg.ErrorMessage, want)
	}
}

// loopbackDNS is an HTTP client whose name lookups go to a DNS server on
// loopback that knows no name, so that a test of an unresolvable host
// sends nothing off the machine.
func loopbackDNS(t *testing.T, asked *atomic.Int32) *http.Client {
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pc.Close() })
	go func() {
		buf := make([]byte, 1500)
		for {
			n, from, err := pc.ReadFrom(buf)
			if err != nil {
				return
			}
			if n < 12 {
				continue
			}
			asked.Add(1)
			q := buf[:n]
			q[2] |= 0x80                    // a response
			q[3] = (q[3] & 0x70) | 0x80 | 3 // recursion available, NXDOMAIN
			pc.WriteTo(q, from)
		}
	}()
	r := &net.Resolver{PreferGo: true, Dial: func(ctx context.Context, network, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "udp", pc.LocalAddr().String())
	}}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.DialContext = (&net.Dialer{Resolver: r}).DialContext
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr}
}

// statusTransport answers every request with one status, Content-Type and
// body, without a network.
type statusTransport struct {
	status int
	ctype  string
	body   []byte
}

func (s statusTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	h := http.Header{}
	if s.ctype != "" {
		h.Set("Content-Type", s.ctype)
	}
	return &http.Response{StatusCode: s.status, Request: r, Header: h, Body: io.NopCloser(bytes.NewReader(s.body))}, nil
}

// FuzzErrorResponse: whatever the status, Content-Type and body of an
// answer, a failure's text is printable, bounded, names the request and
// never holds the key, even where the body holds it.
func FuzzErrorResponse(f *testing.F) {
	f.Add(uint16(404), "text/html", []byte("<h1>Not Found</h1>"))
	f.Add(uint16(404), "application/json", []byte(`{"error":"model not found"}`))
	f.Add(uint16(401), "application/json", []byte(`{"error":{"message":"bad key KEY"}}`))
	f.Add(uint16(422), "application/json", []byte(`{"detail":[{"msg":"field required"}]}`))
	f.Add(uint16(200), "text/event-stream", []byte("data: hello\n\n"))
	f.Add(uint16(200), "application/json", []byte(`{"choices":[]}`))
	f.Add(uint16(200), "", []byte(""))
	f.Add(uint16(301), "text/html", []byte("moved"))
	f.Add(uint16(200), "text/event-stream", []byte(`data: {"error":{"message":"KEY"}}`+"\n\n"))
	const key = "sk-fuzz-0123456789abcdef"
	f.Fuzz(func(t *testing.T, status uint16, ctype string, body []byte) {
		if status < 200 || status > 599 {
			return
		}
		body = bytes.ReplaceAll(body, []byte("KEY"), []byte(key))
		m, err := openai.New(openai.Options{Model: "m", BaseURL: "http://fuzz.invalid/v1", APIKey: key, Retries: -1,
			HTTPClient: &http.Client{Transport: statusTransport{int(status), ctype, body}}})
		if err != nil {
			t.Fatal(err)
		}
		msg := m.Stream(context.Background(), hello, func(host.AssistantMessageEvent) {})
		if msg.StopReason != host.StopReasonError {
			return // a body that is a stream the model finished
		}
		text := msg.ErrorMessage
		if strings.Contains(text, key) {
			t.Fatalf("the key leaks: %q", text)
		}
		if !strings.Contains(text, "(POST http://fuzz.invalid/v1/chat/completions") {
			t.Fatalf("the request is not named: %q", text)
		}
		if len(text) > 3000 {
			t.Fatalf("%d bytes of error text", len(text))
		}
		for _, r := range text {
			if r < 0x20 || (r >= 0x7f && r < 0xa0) {
				t.Fatalf("control character %U in %q", r, text)
			}
		}
	})
}

// A server whose certificate this machine does not trust is named, with
// the reason.
func TestErrorUntrustedCertificate(t *testing.T) {
	srv := httptest.NewTLSServer(answer(200, "text/event-stream", ""))
	defer srv.Close()
	m := model(t, srv.URL+"/v1", func(o *openai.Options) { o.Retries = -1 })
	msg, _ := stream(t, m, context.Background(), hello)
	want := "the TLS certificate of " + strings.TrimPrefix(srv.URL, "https://") + " is not trusted: "
	if !strings.HasPrefix(msg.ErrorMessage, want) || !strings.HasSuffix(msg.ErrorMessage, "(POST "+srv.URL+"/v1/chat/completions)") {
		t.Fatalf("error %q\nwant it to start %q", msg.ErrorMessage, want)
	}
	t.Log(msg.ErrorMessage)
}
