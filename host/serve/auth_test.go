package serve

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
)

const (
	tokenA = "token-of-alice-0123456789"
	tokenB = "token-of-bob-9876543210xx"
)

func twoTokens(t testing.TB) []Token {
	t.Helper()
	list := fmt.Sprintf("# the team\nalice %s\n\nbob %s\n", HashToken(tokenA), HashToken(tokenB))
	toks, err := ParseTokens([]byte(list), "tokens.txt")
	if err != nil || len(toks) != 2 {
		t.Fatalf("ParseTokens: %v %v", toks, err)
	}
	return toks
}

func TestAuthRequired(t *testing.T) {
	h := newHarness(t, harnessOpts{tokens: twoTokens(t)})
	for _, r := range routes {
		path := strings.ReplaceAll(r.path, "{id}", "01234567-89ab-7def-8123-456789abcdef")
		for _, auth := range []string{"", "Bearer", "Bearer wrong-token-000000000", "Basic " + tokenA, "Bearer " + tokenA + "x", tokenA} {
			req, _ := http.NewRequest(r.method, h.http.URL+path, strings.NewReader(`{"message":"x"}`))
			if auth != "" {
				req.Header.Set("Authorization", auth)
			}
			resp, err := h.http.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != 401 || !strings.HasPrefix(resp.Header.Get("WWW-Authenticate"), "Bearer") {
				t.Errorf("%s %s with Authorization %q: %d", r.method, path, auth, resp.StatusCode)
			}
		}
	}
	// The scheme is case-insensitive; the description needs no token.
	h.must(200, "GET", "/v1/sessions", tokenA, "")
	code, _, _ := h.doWith("GET", "/v1/sessions", "", "", map[string]string{"Authorization": "bearer " + tokenA})
	h.must(200, "GET", OpenAPIPath, "", "")
	if code != 200 {
		t.Fatalf("lower-case scheme: %d", code)
	}
}

func TestTokensSeeOnlyTheirOwnSessions(t *testing.T) {
	h := newHarness(t, harnessOpts{tokens: twoTokens(t)})
	a := h.create(tokenA)
	h.must(202, "POST", "/v1/sessions/"+a+"/prompt", tokenA, `{"message":"secret of alice"}`)
	h.waitIdle(a, tokenA)
	b := h.create(tokenB)
	// Every route on alice's session answers bob as if it did not exist.
	for _, r := range routes {
		if !strings.Contains(r.path, "{id}") {
			continue
		}
		path := strings.ReplaceAll(r.path, "{id}", a)
		body := `{"message":"x"}`
		if strings.HasSuffix(path, "/abort") {
			body = ""
		}
		code, data, _ := h.do(r.method, path, tokenB, body)
		if code != 404 || strings.Contains(string(data), "alice") {
			t.Errorf("bob: %s %s: %d %s", r.method, path, code, data)
		}
		// ... exactly as an id never made.
		code2, data2, _ := h.do(r.method, strings.ReplaceAll(r.path, "{id}", "01234567-89ab-7def-8123-456789abcdef"), tokenB, body)
		if code2 != code || strings.ReplaceAll(string(data), a, "") != strings.ReplaceAll(string(data2), "01234567-89ab-7def-8123-456789abcdef", "") {
			t.Errorf("bob: %s on alice's session answers %s, on none %s", r.method, data, data2)
		}
	}
	var list struct{ Sessions []SessionInfo }
	json.Unmarshal(h.must(200, "GET", "/v1/sessions", tokenB, ""), &list)
	if len(list.Sessions) != 1 || list.Sessions[0].ID != b {
		t.Fatalf("bob lists %+v", list.Sessions)
	}
	json.Unmarshal(h.must(200, "GET", "/v1/sessions", tokenA, ""), &list)
	if len(list.Sessions) != 1 || list.Sessions[0].ID != a || list.Sessions[0].FirstMessage != "secret of alice" {
		t.Fatalf("alice lists %+v", list.Sessions)
	}
	// After a restart, still hers only.
	h.close()
	h2 := newHarness(t, harnessOpts{root: h.root, tokens: twoTokens(t)})
	h2.must(404, "GET", "/v1/sessions/"+a+"/messages", tokenB, "")
	h2.must(200, "GET", "/v1/sessions/"+a+"/messages", tokenA, "")
}

func TestBrowserRequestsFromElsewhereRefused(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	h.mustErrorWith(403, "cross_origin", "POST", "/v1/sessions", map[string]string{"Origin": "https://evil.example"})
	h.mustErrorWith(403, "cross_origin", "POST", "/v1/sessions", map[string]string{"Origin": "null"})
	own := "http://" + strings.TrimPrefix(h.http.URL, "http://")
	code, data, hdr := h.doWith("POST", "/v1/sessions", "", "", map[string]string{"Origin": own})
	if code != 201 {
		t.Fatalf("same origin: %d %s", code, data)
	}
	for k := range hdr {
		if strings.HasPrefix(k, "Access-Control-") {
			t.Errorf("a CORS header: %s", k)
		}
	}
	// Without tokens, only a loopback Host is served (DNS rebinding).
	req, _ := http.NewRequest("GET", h.http.URL+"/v1/sessions", nil)
	req.Host = "rebind.example:8080"
	resp, err := h.http.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 403 {
		t.Fatalf("Host rebind.example: %d", resp.StatusCode)
	}
	// With tokens, any Host: the token is the check.
	h2 := newHarness(t, harnessOpts{tokens: twoTokens(t)})
	req, _ = http.NewRequest("GET", h2.http.URL+"/v1/sessions", nil)
	req.Host = "agents.example.com"
	req.Header.Set("Authorization", "Bearer "+tokenA)
	resp, err = h2.http.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("with a token, Host agents.example.com: %d", resp.StatusCode)
	}
}

func (h *harness) mustErrorWith(want int, code, method, path string, headers map[string]string) {
	h.t.Helper()
	got, data, _ := h.doWith(method, path, "", "", headers)
	var e errorBody
	if json.Unmarshal(data, &e) != nil || got != want || e.Error.Code != code {
		h.t.Fatalf("%s %s %v: %d %s, want %d %s", method, path, headers, got, data, want, code)
	}
}

func TestParseTokens(t *testing.T) {
	good := "alice " + HashToken(tokenA)
	for _, c := range []struct{ in, want string }{
		{good + "\nalice " + HashToken(tokenB), "also entry 1"},
		{good + "\nbob " + HashToken(tokenA), "same token"},
		{"alice " + tokenA, "sha256:"},
		{"alice sha256:abcd", "64 hex"},
		{"alice", "NAME sha256:HEX"},
		{"../x " + HashToken(tokenA), "name"},
		{".. " + HashToken(tokenA), "name"},
		{"alice " + HashToken(tokenA) + " extra", "fields"},
	} {
		_, err := ParseTokens([]byte(c.in), "f")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want an error saying %q", c.in, err, c.want)
		}
		if err != nil && strings.Contains(err.Error(), tokenA) {
			t.Errorf("%q: the error shows the token: %v", c.in, err)
		}
	}
	toks, err := ParseTokens([]byte(good+","+"bob "+HashToken(tokenB)), "$ENV")
	if err != nil || len(toks) != 2 {
		t.Fatalf("comma-separated: %v %v", toks, err)
	}
	if name, ok := authenticate(toks, tokenB); !ok || name != "bob" {
		t.Fatalf("authenticate bob: %q %v", name, ok)
	}
	if _, ok := authenticate(toks, ""); ok {
		t.Fatal("the empty token authenticates")
	}
}
