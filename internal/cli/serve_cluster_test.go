package cli

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/wasmagent/wasmagent/host/serve"
)

// readyBackend is a serve.Backend whose readiness the test sets.
type readyBackend struct {
	serve.Backend
	err error
}

func (b readyBackend) Ready(context.Context) error { return b.err }

// /healthz answers while the process serves; /readyz says whether the
// backend takes requests, and why not; anything else goes to the API.
func TestHealthRoutes(t *testing.T) {
	api := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusTeapot) })
	get := func(h http.Handler, path string) (int, string) {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
		body, _ := io.ReadAll(rec.Result().Body)
		return rec.Code, string(body)
	}
	ready := withHealth(api, readyBackend{})
	down := withHealth(api, readyBackend{err: errors.New("JetStream is unavailable: no servers")})
	for _, c := range []struct {
		h      http.Handler
		path   string
		status int
		body   string
	}{
		{ready, "/healthz", 200, "ok"},
		{ready, "/readyz", 200, "ready"},
		{down, "/healthz", 200, "ok"},
		{down, "/readyz", 503, "JetStream is unavailable"},
		{ready, "/v1/sessions", http.StatusTeapot, ""},
	} {
		code, body := get(c.h, c.path)
		if code != c.status || !strings.Contains(body, c.body) {
			t.Errorf("%s: %d %q, want %d with %q", c.path, code, body, c.status, c.body)
		}
	}
}
