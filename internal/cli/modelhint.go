package cli

import (
	"fmt"
	"os"
	"strings"

	"github.com/wasmagent/wasmagent/host/config"
)

// openAIRoot is where the openai provider goes without a base_url.
const openAIRoot = "https://api.openai.com/v1"

// modelHint returns, for the model f configures, what a user should check
// after a failed model request: the configuration keys behind the
// failure, with the file they are in. It returns "" when the error says
// nothing about the configuration (a server's own failure, a rate limit).
// got says whether any of the answer arrived before it failed. It matches
// the error texts of host/openai (docs/model-errors.md lists them).
func modelHint(f *config.File) func(msg string, got bool) string {
	m := f.Model
	if m.Provider != "openai" {
		return func(string, bool) string { return "" }
	}
	root := m.BaseURL
	if root == "" {
		root = openAIRoot
	}
	keyEnv := m.APIKeyEnv
	if keyEnv == "" {
		keyEnv = "OPENAI_API_KEY"
	}
	in := fmt.Sprintf("[model] in %s", f.Path)
	return func(msg string, got bool) string {
		switch {
		case strings.HasPrefix(msg, "401 ") || strings.HasPrefix(msg, "403 "):
			if os.Getenv(keyEnv) == "" {
				return fmt.Sprintf("hint: no API key was sent: $%s is empty (api_key_env, %s)", keyEnv, in)
			}
			return fmt.Sprintf("hint: %s refused the key in $%s: check it, or api_key_env (%s)", root, keyEnv, in)
		case len(msg) > 4 && msg[0] == '5' && msg[3] == ' ' && strings.Contains("0123456789", msg[1:2]) && strings.Contains("0123456789", msg[2:3]):
			return fmt.Sprintf("hint: %s failed on its side, not because of the configuration: try again later, or see the server's log (retries in %s sets how often a request is tried again)", root, in)
		case strings.HasPrefix(msg, "the request timed out after ") && strings.Contains(msg, "with no answer"):
			return fmt.Sprintf("hint: %s did not answer within timeout (%s): a local server may still be loading the model (Ollama loads it at its first request), or base_url names a host that never answers", root, in)
		case strings.HasPrefix(msg, "404 "):
			return fmt.Sprintf("hint: %s has no model %q, or no chat completions API: check name and base_url (%s); an OpenAI-compatible API root usually ends in /v1", root, m.Name, in)
		case strings.HasPrefix(msg, "405 "), strings.HasPrefix(msg, "4") && strings.Contains(msg, ", not the API's JSON error: "):
			return fmt.Sprintf("hint: %s answered, but not as an OpenAI-compatible API: check base_url (%s); an OpenAI-compatible API root usually ends in /v1", root, in)
		case strings.HasPrefix(msg, "connection refused: "), strings.HasPrefix(msg, "cannot resolve the host name "):
			return fmt.Sprintf("hint: %s cannot be reached: is the server running, and is base_url right (%s)?", root, in)
		case strings.Contains(msg, "it answers plain HTTP, not HTTPS"):
			return fmt.Sprintf("hint: the server at %s speaks plain HTTP: write base_url with http:// (%s)", root, in)
		case strings.HasPrefix(msg, "the TLS certificate of "):
			return fmt.Sprintf("hint: this machine does not trust the certificate of %s: check base_url's host name (%s)", root, in)
		case strings.Contains(msg, "another origin (scheme, host or port)"), strings.HasPrefix(msg, "the server redirected too many times"):
			return fmt.Sprintf("hint: %s redirects the request: give base_url as the API root the server wants (%s)", root, in)
		case strings.Contains(msg, `ignored "stream": true`):
			return fmt.Sprintf("hint: %s answers without streaming: wasmagent needs a server that streams chat completions (stream: true) (%s)", root, in)
		case strings.Contains(msg, ", not an event stream"), strings.HasPrefix(msg, "the event stream ended before any chunk came"),
			strings.HasPrefix(msg, "the server's first event is not valid JSON"):
			return fmt.Sprintf("hint: %s answered, but with no event stream: is base_url an OpenAI-compatible API root (%s)?", root, in)
		}
		return ""
	}
}
