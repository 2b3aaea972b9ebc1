package runtime

import (
	"net/http"
	"net/url"
	"testing"
)

// headerRecorder is a RoundTripper that keeps the request it is given.
type headerRecorder struct{ got *http.Request }

func (r *headerRecorder) RoundTrip(req *http.Request) (*http.Response, error) {
	r.got = req
	return &http.Response{StatusCode: 200, Body: http.NoBody, Request: req}, nil
}

// A credential goes only where nobody on the way reads it: to its host
// over https, or over http to a loopback address. On the old main a
// plugin granted api.github.com with a token could ask for
// http://api.github.com/ and the host sent the token in the clear.
func TestCredentialsNeverGoInTheClear(t *testing.T) {
	grant := func(host string) *Plugin {
		hp, err := parseHostPattern(host)
		if err != nil {
			t.Fatal(err)
		}
		return &Plugin{creds: []credential{{Credential: Credential{Host: host, Header: "Authorization", Value: "Bearer s3cret"}, pattern: hp}}}
	}
	for _, c := range []struct {
		grant, url string
		sent       bool
	}{
		{"api.example.com", "https://api.example.com/x", true},
		{"api.example.com", "https://API.example.com./x", true},
		{"api.example.com", "http://api.example.com/x", false},
		{"api.example.com", "http://api.example.com:443/x", false},
		{"*.example.com", "http://a.example.com/x", false},
		{"*", "http://example.org/", false},
		{"api.example.com:8443", "https://api.example.com:8443/", true},
		{"api.example.com:8080", "http://api.example.com:8080/", false},
		{"127.0.0.1:8080", "http://127.0.0.1:8080/", true},
		{"[::1]:8080", "http://[::1]:8080/", true},
		{"localhost:8080", "http://localhost:8080/", true},
		{"api.example.com", "https://other.example.com/", false},
	} {
		rec := &headerRecorder{}
		tr := &credentialTransport{pl: grant(c.grant), next: rec}
		u, _ := url.Parse(c.url)
		req := &http.Request{Method: "GET", URL: u, Header: http.Header{"Authorization": {"Bearer planted"}}}
		if _, err := tr.RoundTrip(req); err != nil {
			t.Fatal(err)
		}
		got := rec.got.Header.Get("Authorization")
		if c.sent != (got == "Bearer s3cret") || (!c.sent && got != "") {
			t.Errorf("grant %s, %s: Authorization %q", c.grant, c.url, got)
		}
	}
}
