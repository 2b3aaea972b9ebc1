package openai_test

import (
	"context"
	"io"
	"net/http"
	"sync"
	"testing"

	"github.com/wasmagent/wasmagent/host"
	"github.com/wasmagent/wasmagent/host/openai"
)

// OnRetry hears of each attempt openai-go tries again, and only those:
// the status, the count, and the wait the server asked for.
func TestOnRetry(t *testing.T) {
	cases := []struct {
		name    string
		retries int
		fail    func(w http.ResponseWriter) // the answer of every failed attempt
		fails   int                         // attempts that fail before success
		want    []string
		stop    host.StopReason
	}{
		{"429 then success", 2, func(w http.ResponseWriter) {
			w.Header().Set("Retry-After-Ms", "20")
			w.WriteHeader(http.StatusTooManyRequests)
			io.WriteString(w, `{"error":{"message":"slow down"}}`)
		}, 1, []string{"rate limited (429), retry 1/2 in 0s"}, host.StopReasonStop},
		{"500 until the retries run out", 2, func(w http.ResponseWriter) {
			w.Header().Set("Retry-After", "0")
			w.WriteHeader(http.StatusInternalServerError)
		}, 99, []string{"server error (500), retry 1/2 in 0s", "server error (500), retry 2/2 in 0s"}, host.StopReasonError},
		{"400 is not retried", 2, func(w http.ResponseWriter) {
			w.WriteHeader(http.StatusBadRequest)
			io.WriteString(w, `{"error":{"message":"bad"}}`)
		}, 99, nil, host.StopReasonError},
		{"x-should-retry false", 2, func(w http.ResponseWriter) {
			w.Header().Set("x-should-retry", "false")
			w.WriteHeader(http.StatusServiceUnavailable)
		}, 99, nil, host.StopReasonError},
		{"no retries", -1, func(w http.ResponseWriter) {
			w.WriteHeader(http.StatusTooManyRequests)
		}, 99, nil, host.StopReasonError},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := newServer(t, func(s *server, w http.ResponseWriter, r *http.Request) {
				if int(s.hits.Load()) <= c.fails {
					c.fail(w)
					return
				}
				sendSSE(t, w, "openai_text")
			})
			var mu sync.Mutex
			var got []string
			m := model(t, s.URL, func(o *openai.Options) {
				o.Retries = c.retries
				o.OnRetry = func(r openai.Retry) {
					mu.Lock()
					defer mu.Unlock()
					got = append(got, r.String())
				}
			})
			msg, _ := stream(t, m, context.Background(), hello)
			if msg.StopReason != c.stop {
				t.Fatalf("stop %s: %s", msg.StopReason, msg.ErrorMessage)
			}
			mu.Lock()
			defer mu.Unlock()
			if len(got) != len(c.want) {
				t.Fatalf("retries %q, want %q", got, c.want)
			}
			for i := range got {
				if got[i] != c.want[i] {
					t.Fatalf("retries %q, want %q", got, c.want)
				}
			}
		})
	}
}

func TestRetryString(t *testing.T) {
	for _, c := range []struct {
		r    openai.Retry
		want string
	}{
		{openai.Retry{Attempt: 1, Of: 2, Status: 429, Delay: 2e9}, "rate limited (429), retry 1/2 in 2s"},
		{openai.Retry{Attempt: 2, Of: 3, Status: 503, Delay: 1234e6}, "server error (503), retry 2/3 in 1.2s"},
		{openai.Retry{Attempt: 1, Of: 1, Status: 0, Delay: 15400e6}, "connection failed, retry 1/1 in 15s"},
		{openai.Retry{Attempt: 1, Of: 1, Status: 409, Delay: 0}, "HTTP 409, retry 1/1 in 0s"},
	} {
		if got := c.r.String(); got != c.want {
			t.Errorf("%+v: %q, want %q", c.r, got, c.want)
		}
	}
}
