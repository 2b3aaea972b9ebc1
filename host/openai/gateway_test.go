package openai_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"testing"

	"github.com/wasmagent/wasmagent/host"
	"github.com/wasmagent/wasmagent/host/openai"
)

// An Azure-style endpoint or a gateway: the base URL's query string and
// the configured headers reach every request, for generated queries
// (repeated keys, characters that need escaping) and headers.
func TestBaseURLQueryAndHeadersReachTheServer(t *testing.T) {
	type seen struct {
		path  string
		query url.Values
		head  http.Header
	}
	got := make(chan seen, 1)
	s := newServer(t, func(s *server, w http.ResponseWriter, r *http.Request) {
		got <- seen{r.URL.Path, r.URL.Query(), r.Header.Clone()}
		sendSSE(t, w, "openai_text")
	})
	rng := rand.New(rand.NewPCG(13, 1))
	word := func() string {
		const chars = "abcXYZ09-_.~ &=?/%+é"
		b := make([]rune, 1+rng.IntN(8))
		for i := range b {
			b[i] = []rune(chars)[rng.IntN(len([]rune(chars)))]
		}
		return string(b)
	}
	for i := range 40 {
		want := url.Values{}
		for range rng.IntN(4) {
			k := word()
			for range 1 + rng.IntN(2) {
				want.Add(k, word())
			}
		}
		headers := http.Header{}
		for j := range rng.IntN(3) {
			headers.Set(fmt.Sprintf("X-Gateway-%d", j), strings.TrimSpace(word())+"v")
		}
		base := s.URL + "/openai/deployments/d" + fmt.Sprint(i)
		if len(want) > 0 {
			base += "?" + want.Encode()
		}
		m := model(t, base, func(o *openai.Options) { o.Headers = headers })
		if msg, _ := stream(t, m, context.Background(), hello); msg.StopReason != host.StopReasonStop {
			t.Fatalf("%s: %s %s", base, msg.StopReason, msg.ErrorMessage)
		}
		r := <-got
		if wantPath := fmt.Sprintf("/openai/deployments/d%d/chat/completions", i); r.path != wantPath {
			t.Fatalf("%s: path %q, want %q", base, r.path, wantPath)
		}
		if len(want) == 0 {
			want = url.Values{}
		}
		if !reflect.DeepEqual(r.query, want) {
			t.Fatalf("%s: query %v, want %v", base, r.query, want)
		}
		for k := range headers {
			if r.head.Get(k) != headers.Get(k) {
				t.Fatalf("%s: header %s = %q, want %q", base, k, r.head.Get(k), headers.Get(k))
			}
		}
		if r.head.Get("Authorization") != "Bearer sk-test" {
			t.Fatalf("%s: Authorization %q", base, r.head.Get("Authorization"))
		}
	}
}

// A configured Authorization header replaces the bearer token, and no
// header value appears in an error text, even when the server echoes it.
func TestHeadersOverrideAndStaySecret(t *testing.T) {
	const secret = "azure-secret-0123456789"
	s := newServer(t, func(s *server, w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		fmt.Fprintf(w, `{"error":{"message":"bad key %s, auth %s"}}`, r.Header.Get("api-key"), r.Header.Get("Authorization"))
	})
	m := model(t, s.URL+"/v1?api-version=2024-10-21", func(o *openai.Options) {
		o.APIKey, o.Retries = "", -1
		o.Headers = http.Header{"Api-Key": {secret}, "Authorization": {"Token " + secret}}
	})
	msg, _ := stream(t, m, context.Background(), hello)
	if msg.StopReason != host.StopReasonError {
		t.Fatalf("stop %s", msg.StopReason)
	}
	if strings.Contains(msg.ErrorMessage, secret) || !strings.Contains(msg.ErrorMessage, "auth [header Authorization]") || !strings.Contains(msg.ErrorMessage, "bad key [header Api-Key]") {
		t.Fatalf("error text: %s", msg.ErrorMessage)
	}
	if !strings.Contains(msg.ErrorMessage, "api-version=2024-10-21") {
		t.Fatalf("error text does not name the request's URL with its api-version: %s", msg.ErrorMessage)
	}
}
