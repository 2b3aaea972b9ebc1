// Package openai is a host.Model over github.com/openai/openai-go: streaming
// chat completions from OpenAI or any server that speaks the same API
// (Ollama, vLLM, llama.cpp server, DeepSeek…), mapped onto pi-ai's
// assistant-message events. It is the only package of wasmagent that
// imports openai-go.
package openai

import (
	"context"
	"errors"
	"net/http"
	"time"

	oai "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/wasmagent/wasmagent/host"
)

// Options configure a [Model].
type Options struct {
	// Model is the model's name on the server, as in "gpt-4o-mini".
	Model string
	// BaseURL is the API root (default https://api.openai.com/v1).
	BaseURL string
	// APIKey is sent as a bearer token (may be empty for local servers).
	APIKey string
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
	// MaxResponseBytes caps the bytes of one streamed response, as read
	// from the connection (default DefaultMaxResponseBytes, 64 MiB): a
	// response that goes past it ends the message with stop reason "error"
	// and a text that names the cap.
	MaxResponseBytes int64
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
		ro = append(ro, option.WithBaseURL(opts.BaseURL))
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
// message with stopReason "error" and the server's message; a cancelled
// ctx gives "aborted" at once.
func (m *Model) Stream(ctx context.Context, req *host.Request, emit func(host.AssistantMessageEvent)) *host.AssistantMessage {
	ctx, cancel := context.WithTimeout(ctx, m.opts.Timeout)
	defer cancel()
	s := newAssembler(m.ModelInfo(), emit)
	params, err := m.params(req)
	if err != nil {
		return s.fail(ctx, err)
	}
	stream := m.client.Chat.Completions.NewStreaming(ctx, params, option.WithMiddleware(capBody(m.opts.MaxResponseBytes)))
	defer stream.Close()
	if err := stream.Err(); err != nil {
		// The request itself failed (after retries): no start event, as
		// in pi-ai.
		return s.fail(ctx, err)
	}
	s.start()
	for stream.Next() {
		if err := s.chunk(stream.Current()); err != nil {
			return s.fail(ctx, err)
		}
	}
	if err := stream.Err(); err != nil {
		return s.fail(ctx, err)
	}
	if ctx.Err() != nil {
		return s.fail(ctx, ctx.Err())
	}
	return s.done()
}
