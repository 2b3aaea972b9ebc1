// Package provider is the registry of model providers: the names
// agent.toml's [model] provider may take, each with the function that
// makes its host.Model. A provider's package registers itself when it is
// imported, as database/sql drivers do, so that the packages which read a
// configuration (host/config, and serve, rpc, mcp and cluster on top of
// it) link no provider's client library: a program links the providers
// it imports. cmd/wasmagent imports host/openai; an embedder imports the
// ones it offers.
package provider

import (
	"fmt"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/wasmagent/wasmagent/host"
)

// Options describe an OpenAI-compatible model, the shape every provider
// takes today (host/openai reads them as its own Options).
type Options struct {
	// Model is the model's name on the server, as in "gpt-4o-mini".
	Model string
	// BaseURL is the API root (default https://api.openai.com/v1).
	BaseURL string
	// APIKey is sent as a bearer token (may be empty for local servers).
	APIKey string
	// Headers are sent with every request, after the SDK's own (so one
	// named Authorization replaces the bearer token). Their values, like
	// the API key, never appear in an error text.
	Headers http.Header
	// Temperature, MaxTokens and ReasoningEffort are sent when set.
	Temperature     *float64
	MaxTokens       int64
	ReasoningEffort string // "minimal", "low", "medium", "high"
	// Timeout bounds one request, the whole stream included (default 10
	// minutes).
	Timeout time.Duration
	// Retries is how many times a request that failed with 408, 409, 429,
	// a 5xx or a dropped connection is tried again, honouring Retry-After
	// (default 2; negative means none).
	Retries int
	// HTTPClient replaces the default client (tests, proxies).
	HTTPClient *http.Client
	// Provider labels the messages (default "openai").
	Provider string
	// OnRetry, if set, is told of each failed attempt that is about to be
	// tried again (a status line for a waiting user). It must not block.
	OnRetry func(Retry)
	// MaxResponseBytes caps the bytes of one streamed response, as read
	// from the connection (default 64 MiB): a response that goes past it
	// ends the message with stop reason "error" and a text that names the
	// cap.
	MaxResponseBytes int64
}

// Retry is an attempt that failed and is tried again.
type Retry struct {
	Attempt int           // 1 for the first retry
	Of      int           // the retries allowed (Options.Retries)
	Status  int           // the HTTP status; 0 when the connection failed
	Err     error         // the connection's error when Status is 0
	Delay   time.Duration // the wait before the next attempt (at most; the client may wait less)
}

// String says what happened in a few words:
// "rate limited (429), retry 1/2 in 2s".
func (r Retry) String() string {
	what := "connection failed"
	switch {
	case r.Status == http.StatusTooManyRequests:
		what = "rate limited (429)"
	case r.Status >= 500:
		what = fmt.Sprintf("server error (%d)", r.Status)
	case r.Status != 0:
		what = fmt.Sprintf("HTTP %d", r.Status)
	}
	d := r.Delay.Round(100 * time.Millisecond)
	if r.Delay >= 10*time.Second {
		d = r.Delay.Round(time.Second)
	}
	return fmt.Sprintf("%s, retry %d/%d in %s", what, r.Attempt, r.Of, d)
}

// Func makes a provider's model. It does not contact the server.
type Func func(Options) (host.Model, error)

var (
	mu    sync.RWMutex
	funcs = map[string]Func{}
)

// Register makes name a provider. It panics when f is nil or name is
// taken: both are a program's mistake, made at init.
func Register(name string, f Func) {
	if f == nil {
		panic("provider: Register of " + name + " with a nil function")
	}
	mu.Lock()
	defer mu.Unlock()
	if _, dup := funcs[name]; dup {
		panic("provider: Register called twice for " + name)
	}
	funcs[name] = f
}

// Lookup returns the function of provider name, and whether this program
// registered it.
func Lookup(name string) (Func, bool) {
	mu.RLock()
	defer mu.RUnlock()
	f, ok := funcs[name]
	return f, ok
}

// Names lists the registered providers, sorted.
func Names() []string {
	mu.RLock()
	defer mu.RUnlock()
	names := make([]string, 0, len(funcs))
	for n := range funcs {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}
