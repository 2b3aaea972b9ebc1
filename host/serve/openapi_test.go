package serve

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

type openAPIDoc struct {
	OpenAPI string                                `json:"openapi"`
	Paths   map[string]map[string]json.RawMessage `json:"paths"`
}

func loadOpenAPI(t testing.TB) openAPIDoc {
	t.Helper()
	var doc openAPIDoc
	if err := json.Unmarshal(openAPI, &doc); err != nil {
		t.Fatalf("openapi.json: %v", err)
	}
	if !strings.HasPrefix(doc.OpenAPI, "3.1.") {
		t.Fatalf("openapi %q, want 3.1.x", doc.OpenAPI)
	}
	return doc
}

// operations are the document's "METHOD /path" pairs.
func (d openAPIDoc) operations() []string {
	var out []string
	for path, item := range d.Paths {
		for method := range item {
			if method != "parameters" {
				out = append(out, strings.ToUpper(method)+" "+path)
			}
		}
	}
	slices.Sort(out)
	return out
}

// TestOpenAPIMatchesRoutes: every route the mux serves is in the
// document, and every operation of the document is a route the mux
// serves with that very pattern.
func TestOpenAPIMatchesRoutes(t *testing.T) {
	doc := loadOpenAPI(t)
	var table []string
	for _, r := range routes {
		table = append(table, r.method+" "+r.path)
	}
	table = append(table, "GET "+OpenAPIPath)
	slices.Sort(table)
	if ops := doc.operations(); !slices.Equal(ops, table) {
		t.Fatalf("the document's operations\n  %v\nare not the routes\n  %v", ops, table)
	}
	s, err := New(Options{Backend: &Local{}})
	if err != nil {
		t.Fatal(err)
	}
	for _, op := range doc.operations() {
		method, path, _ := strings.Cut(op, " ")
		req := httptest.NewRequest(method, strings.ReplaceAll(path, "{id}", "x"), nil)
		if _, pattern := s.mux.Handler(req); pattern != op {
			t.Errorf("%s is served by pattern %q", op, pattern)
		}
	}
	// Served as it is embedded.
	h := newHarness(t, harnessOpts{})
	if body := h.must(200, "GET", OpenAPIPath, "", ""); !bytes.Equal(body, openAPI) {
		t.Fatal("GET /v1/openapi.json is not the document")
	}
}

// schemaChecker validates responses against the document's schemas.
type schemaChecker struct {
	t   testing.TB
	doc openAPIDoc
	c   *jsonschema.Compiler

	mu   sync.Mutex
	seen map[string]bool // "METHOD /path STATUS" checked
}

func newSchemaChecker(t testing.TB) *schemaChecker {
	doc := loadOpenAPI(t)
	raw, err := jsonschema.UnmarshalJSON(bytes.NewReader(openAPI))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat()
	if err := c.AddResource("https://wasmagent.invalid/openapi.json", raw); err != nil {
		t.Fatal(err)
	}
	return &schemaChecker{t: t, doc: doc, c: c, seen: map[string]bool{}}
}

func pointerEscape(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

// check validates one response of the operation pattern ("METHOD /path").
func (sc *schemaChecker) check(pattern string, status int, header http.Header, body []byte) {
	sc.t.Helper()
	method, path, ok := strings.Cut(pattern, " ")
	if !ok {
		// The mux's fallbacks (unknown route, wrong method): an Error.
		sc.validate("#/components/schemas/Error", body, pattern)
		return
	}
	var op struct {
		Responses map[string]struct {
			Content map[string]json.RawMessage `json:"content"`
		} `json:"responses"`
	}
	json.Unmarshal(sc.doc.Paths[path][strings.ToLower(method)], &op)
	resp, ok := op.Responses[strconv.Itoa(status)]
	if !ok {
		sc.t.Errorf("%s answered %d, which the document does not list: %s", pattern, status, body)
		return
	}
	sc.mu.Lock()
	sc.seen[fmt.Sprintf("%s %d", pattern, status)] = true
	sc.mu.Unlock()
	ct := header.Get("Content-Type")
	if len(resp.Content) == 0 {
		if len(body) > 0 {
			sc.t.Errorf("%s %d: the document says no body, got %q", pattern, status, body)
		}
		return
	}
	if _, ok := resp.Content[ct]; !ok {
		sc.t.Errorf("%s %d: Content-Type %q is not the document's", pattern, status, ct)
		return
	}
	if ct == "application/json" {
		sc.validate(fmt.Sprintf("#/paths/%s/%s/responses/%d/content/application~1json/schema", pointerEscape(path), strings.ToLower(method), status), body, pattern)
	}
}

func (sc *schemaChecker) validate(ptr string, body []byte, what string) {
	sc.t.Helper()
	sch, err := sc.c.Compile("https://wasmagent.invalid/openapi.json" + ptr)
	if err != nil {
		sc.t.Fatalf("schema %s: %v", ptr, err)
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(body))
	if err != nil {
		sc.t.Errorf("%s: not JSON: %q", what, body)
		return
	}
	if err := sch.Validate(v); err != nil {
		sc.t.Errorf("%s: %s does not match %s: %v", what, body, ptr, err)
	}
}

// wrap records every response (except event streams' bodies) and checks it.
func (sc *schemaChecker) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/events") && r.Header.Get("X-Check") == "" {
			next.ServeHTTP(w, r)
			return
		}
		rec := httptest.NewRecorder()
		next.ServeHTTP(rec, r)
		sc.check(r.Pattern, rec.Code, rec.Header(), rec.Body.Bytes())
		for k, v := range rec.Header() {
			w.Header()[k] = v
		}
		w.WriteHeader(rec.Code)
		w.Write(rec.Body.Bytes())
	})
}

// TestResponsesMatchSchemas drives every route through its answers and
// checks each against the document.
func TestResponsesMatchSchemas(t *testing.T) {
	sc := newSchemaChecker(t)
	h := newHarness(t, harnessOpts{tokens: twoTokens(t), quota: Quota{Sessions: 2, Runs: 1}, wrap: sc.wrap,
		server: func(o *Options) { o.MaxPromptBytes = 100 }})
	h.mustError(401, "unauthorized", "GET", "/v1/sessions", "", "")
	h.must(200, "GET", OpenAPIPath, "", "")
	id := h.create(tokenA)
	h.must(201, "POST", "/v1/sessions", tokenA, `{"name":"n","model":{"provider":"test","modelId":"echo"}}`)
	h.mustError(429, "quota_exceeded", "POST", "/v1/sessions", tokenA, "")
	h.mustError(400, "invalid_request", "POST", "/v1/sessions", tokenB, `{"x":1}`)
	h.mustError(413, "too_large", "POST", "/v1/sessions", tokenB, `{"systemPrompt":"`+strings.Repeat("x", 101)+`"}`)
	h.must(200, "GET", "/v1/sessions", tokenA, "")
	h.must(200, "GET", "/v1/sessions/"+id, tokenA, "")
	h.mustError(404, "not_found", "GET", "/v1/sessions/"+id, tokenB, "")
	h.must(200, "GET", "/v1/sessions/"+id+"/messages", tokenA, "")
	h.mustError(404, "not_found", "GET", "/v1/sessions/"+id+"/messages", tokenB, "")
	ev := h.openEvents(id, tokenA, "")
	defer ev.close()
	h.must(202, "POST", "/v1/sessions/"+id+"/prompt", tokenA, `{"message":"call 1 300"}`)
	ev.until(t, "tool_execution_start")
	h.mustError(409, "busy", "POST", "/v1/sessions/"+id+"/prompt", tokenA, `{"message":"x"}`)
	h.mustError(413, "too_large", "POST", "/v1/sessions/"+id+"/prompt", tokenA, `{"message":"`+strings.Repeat("x", 101)+`","streamingBehavior":"steer"}`)
	h.mustError(400, "invalid_request", "POST", "/v1/sessions/"+id+"/steer", tokenA, `{}`)
	h.must(202, "POST", "/v1/sessions/"+id+"/steer", tokenA, `{"message":"s"}`)
	h.must(202, "POST", "/v1/sessions/"+id+"/follow_up", tokenA, `{"message":"f"}`)
	h.mustError(404, "not_found", "POST", "/v1/sessions/"+id+"/follow_up", tokenB, `{"message":"f"}`)
	other := h.create(tokenB)
	h.create(tokenB)
	h.mustError(404, "not_found", "POST", "/v1/sessions/"+other+"/abort", tokenA, ``)
	h.must(202, "POST", "/v1/sessions/"+other+"/prompt", tokenB, `{"message":"call 1 300"}`)
	h.mustError(429, "quota_exceeded", "POST", "/v1/sessions/"+h.createAfterDelete(tokenB, other)+"/prompt", tokenB, `{"message":"x"}`)
	h.must(200, "POST", "/v1/sessions/"+id+"/abort", tokenA, `{"type":"abort"}`)
	h.mustError(400, "invalid_request", "POST", "/v1/sessions/"+id+"/abort", tokenA, `{"message":"x"}`)
	code, _, _ := h.doWith("GET", "/v1/sessions/"+id+"/events", tokenA, "", map[string]string{"Last-Event-ID": "x", "X-Check": "1"})
	if code != 400 {
		t.Fatalf("bad Last-Event-ID: %d", code)
	}
	code, _, _ = h.doWith("GET", "/v1/sessions/"+other+"/events", tokenA, "", map[string]string{"X-Check": "1"})
	if code != 404 {
		t.Fatalf("another's events: %d", code)
	}
	h.must(204, "DELETE", "/v1/sessions/"+id, tokenA, "")
	h.mustError(404, "not_found", "DELETE", "/v1/sessions/"+id, tokenA, "")
	h.mustError(405, "method_not_allowed", "PATCH", "/v1/sessions/"+id, tokenA, "")
	h.server.StopRuns("stopping")
	h.mustError(503, "draining", "POST", "/v1/sessions/"+other+"/prompt", tokenB, `{"message":"x"}`)
	h.mustError(503, "draining", "POST", "/v1/sessions", tokenB, ``)
	// Every operation was seen answering 2xx.
	for _, op := range sc.doc.operations() {
		ok := false
		for k := range sc.seen {
			ok = ok || strings.HasPrefix(k, op+" 2")
		}
		if !ok && op != "GET /v1/sessions/{id}/events" {
			t.Errorf("%s never answered 2xx in this test", op)
		}
	}
}

// createAfterDelete makes room for one more of token's sessions by
// deleting none but keep (the quota is 2) and returns a new session.
func (h *harness) createAfterDelete(token, keep string) string {
	h.t.Helper()
	var list struct{ Sessions []SessionInfo }
	json.Unmarshal(h.must(200, "GET", "/v1/sessions", token, ""), &list)
	for _, s := range list.Sessions {
		if s.ID != keep {
			h.must(204, "DELETE", "/v1/sessions/"+s.ID, token, "")
		}
	}
	return h.create(token)
}

// failRecorder is a testing.TB that records failures instead of failing.
type failRecorder struct {
	testing.TB
	failed []string
}

func (f *failRecorder) Errorf(format string, args ...any) {
	f.failed = append(f.failed, fmt.Sprintf(format, args...))
}
func (f *failRecorder) Helper() {}

// TestSchemaCheckerCatches: the checker fails answers that do not match.
func TestSchemaCheckerCatches(t *testing.T) {
	json := http.Header{"Content-Type": {"application/json"}}
	for _, c := range []struct {
		pattern string
		status  int
		body    string
	}{
		{"GET /v1/sessions/{id}", 200, `{"id":"x"}`},
		{"GET /v1/sessions/{id}", 200, `{"id":"0190a000-0000-7000-8000-000000000000","created":"now","modified":"2026-01-01T00:00:00Z","messageCount":0,"isStreaming":false}`},
		{"GET /v1/sessions", 200, `{"sessions":null}`},
		{"GET /v1/sessions", 418, `{}`},
		{"POST /v1/sessions/{id}/prompt", 202, `{"ok":true}`},
		{"GET /v1/sessions/{id}", 404, `{"error":{"code":"nope","message":"x"}}`},
	} {
		rec := &failRecorder{TB: t}
		sc := newSchemaChecker(t)
		sc.t = rec
		sc.check(c.pattern, c.status, json, []byte(c.body))
		if len(rec.failed) == 0 {
			t.Errorf("%s %d %s passed the checker", c.pattern, c.status, c.body)
		}
	}
}
