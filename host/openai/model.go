// Package openai is a host.Model over github.com/openai/openai-go: streaming
// chat completions from OpenAI or any server that speaks the same API
// (Ollama, vLLM, llama.cpp server, DeepSeek…), mapped onto pi-ai's
// assistant-message events. It is the only package of wasmagent that
// imports openai-go.
package openai

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"time"

	oai "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/wasmagent/wasmagent/host"
	"github.com/wasmagent/wasmagent/host/provider"
)

// Options configure a [Model]; Retry is an attempt that failed and is
// tried again. Both are host/provider's, so that a configuration can
// describe a model without linking this package.
type (
	Options = provider.Options
	Retry   = provider.Retry
)

func init() {
	provider.Register("openai", func(o provider.Options) (host.Model, error) {
		m, err := New(o)
		if err != nil {
			return nil, err
		}
		return m, nil
	})
}

// Model streams chat completions. It is safe for concurrent use.
type Model struct {
	opts   Options
	client oai.Client
}

var (
	_ host.Model          = (*Model)(nil)
	_ host.ModelDescriber = (*Model)(nil)
)

// API is the api label of the messages this model makes.
const API = "openai-completions"

// New makes a Model. It does not contact the server.
func New(opts Options) (*Model, error) {
	if opts.Model == "" {
		return nil, errors.New("openai: no model name")
	}
	if opts.Timeout == 0 {
		opts.Timeout = 10 * time.Minute
	}
	if opts.Retries == 0 {
		opts.Retries = 2
	}
	if opts.Retries < 0 {
		opts.Retries = 0
	}
	if opts.MaxResponseBytes <= 0 {
		opts.MaxResponseBytes = DefaultMaxResponseBytes
	}
	if opts.Provider == "" {
		opts.Provider = "openai"
	}
	ro := []option.RequestOption{option.WithMaxRetries(opts.Retries), option.WithAPIKey(opts.APIKey)}
	if opts.BaseURL != "" {
		base, query, err := splitQuery(opts.BaseURL)
		if err != nil {
			return nil, err
		}
		ro = append(ro, option.WithBaseURL(base))
		// openai-go resolves each endpoint against the base URL, which
		// drops the base's query string: an Azure-style
		// "?api-version=…" is added to every request instead.
		for _, k := range slices.Sorted(maps.Keys(query)) {
			for _, v := range query[k] {
				ro = append(ro, option.WithQueryAdd(k, v))
			}
		}
	}
	for _, k := range slices.Sorted(maps.Keys(opts.Headers)) {
		for i, v := range opts.Headers[k] {
			if i == 0 {
				ro = append(ro, option.WithHeader(k, v))
			} else {
				ro = append(ro, option.WithHeaderAdd(k, v))
			}
		}
	}
	if opts.HTTPClient != nil {
		ro = append(ro, option.WithHTTPClient(opts.HTTPClient))
	}
	return &Model{opts: opts, client: oai.NewClient(ro...)}, nil
}

// ModelInfo implements host.ModelDescriber.
func (m *Model) ModelInfo() host.ModelInfo {
	return host.ModelInfo{API: API, Provider: m.opts.Provider, ID: m.opts.Model}
}

// Stream implements host.Model: every failure (HTTP, stream, server) is a
// message with stopReason "error" whose text says what happened and which
// request it was, without the API key (docs/model-errors.md); a cancelled
// ctx gives "aborted" at once.
func (m *Model) Stream(ctx context.Context, req *host.Request, emit func(host.AssistantMessageEvent)) *host.AssistantMessage {
	ctx, cancel := context.WithTimeout(ctx, m.opts.Timeout)
	defer cancel()
	s := newAssembler(m.ModelInfo(), emit)
	params, err := m.params(req)
	if err != nil {
		return s.fail(ctx, err)
	}
	var x exchange
	ro := []option.RequestOption{option.WithMiddleware(capBody(m.opts.MaxResponseBytes)), option.WithMiddleware(x.middleware)}
	if m.opts.OnRetry != nil {
		ro = append(ro, option.WithMiddleware(m.retryWatch()))
	}
	stream := m.client.Chat.Completions.NewStreaming(ctx, params, ro...)
	defer stream.Close()
	chunks := 0
	failed := func(err error) *host.AssistantMessage { return s.fail(ctx, m.explain(err, &x, chunks)) }
	if err := stream.Err(); err != nil {
		// The request itself failed (after retries): no start event, as
		// in pi-ai.
		return failed(err)
	}
	s.start()
	for stream.Next() {
		chunks++
		if err := s.chunk(stream.Current()); err != nil {
			return failed(err)
		}
	}
	if err := stream.Err(); err != nil {
		return failed(err)
	}
	if ctx.Err() != nil {
		return failed(ctx.Err())
	}
	if s.finish == "" {
		return failed(errCut)
	}
	return s.done()
}

// retryWatch is a per-request middleware that sees every attempt and tells
// OnRetry about those openai-go's retry loop will try again (the same rule:
// no response, x-should-retry, 408, 409, 429, 5xx), with the wait it will
// take: Retry-After(-Ms) when the server says, else its backoff's ceiling.
func (m *Model) retryWatch() option.Middleware {
	attempt := 0
	return func(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
		res, err := next(req)
		if attempt >= m.opts.Retries || req.Context().Err() != nil {
			return res, err
		}
		r := Retry{Attempt: attempt + 1, Of: m.opts.Retries, Err: err}
		if res != nil {
			r.Status = res.StatusCode
			switch res.Header.Get("x-should-retry") {
			case "false":
				return res, err
			case "":
				if s := res.StatusCode; s != 408 && s != 409 && s != 429 && s < 500 {
					return res, err
				}
			}
		}
		if r.Delay = retryDelay(res, attempt); r.Delay > 2*time.Minute {
			return res, err // openai-go gives up on a wait this long
		}
		attempt++
		m.opts.OnRetry(r)
		return res, err
	}
}

// retryDelay is the wait openai-go takes before the next attempt: what the
// server asks for, or 0.5s·2^n capped at 8s (less up to a quarter of
// jitter).
func retryDelay(res *http.Response, attempt int) time.Duration {
	if res != nil {
		if ms, err := strconv.ParseFloat(res.Header.Get("Retry-After-Ms"), 64); err == nil && ms >= 0 && ms < 1e9 {
			return time.Duration(ms * float64(time.Millisecond))
		}
		v := res.Header.Get("Retry-After")
		if s, err := strconv.ParseFloat(v, 64); err == nil && s >= 0 && s < 1e6 {
			return time.Duration(s * float64(time.Second))
		}
		if t, err := http.ParseTime(v); err == nil {
			return max(time.Until(t), 0)
		}
	}
	return min(time.Duration(0.5*float64(time.Second)*math.Pow(2, float64(attempt))), 8*time.Second)
}

// splitQuery is base without its query string, and that query.
func splitQuery(base string) (string, url.Values, error) {
	u, err := url.Parse(base)
	if err != nil {
		return "", nil, fmt.Errorf("openai: base URL: %w", err)
	}
	q, err := url.ParseQuery(u.RawQuery)
	if err != nil {
		return "", nil, fmt.Errorf("openai: base URL's query: %w", err)
	}
	u.RawQuery, u.ForceQuery = "", false
	return u.String(), q, nil
}
