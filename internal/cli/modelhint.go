package cli

import (
	"fmt"
	"net/url"
	"os"
	"strconv"
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
		case strings.HasPrefix(msg, "402 "), strings.HasPrefix(msg, "429 ") && outOfQuota(msg):
			return fmt.Sprintf("hint: %s says the account behind the key in $%s is out of quota or credit: a new key with no credit, or a spent plan, is not helped by retrying (check the plan and billing at the provider, or use another key: api_key_env, %s); a per-minute quota passes if you wait", root, keyEnv, in)
		case strings.HasPrefix(msg, "429 "):
			return fmt.Sprintf("hint: %s is rate limiting this key: wait and try again (retries in %s sets how often a request is tried again, honouring the server's Retry-After)", root, in)
		case clientStatus(msg) && noSuchModel(msg, m.Name):
			return fmt.Sprintf("hint: %s has no model %q: check name (%s); the server's list of models is GET %s/models", root, m.Name, in, strings.TrimSuffix(root, "/"))
		case clientStatus(msg) && noTools(msg):
			return fmt.Sprintf("hint: the model %q at %s does not take tools, and every request sends them: choose a model that does (Ollama marks them \"tools\"), as name in %s", m.Name, root, in)
		case strings.HasPrefix(msg, "404 ") && noVersion(root) && (strings.Contains(msg, ", not the API's JSON error: ") || strings.HasSuffix(msg, ": no body") || strings.Contains(msg, ": no body (")):
			return fmt.Sprintf("hint: %s has no chat completions API: base_url names no API version; Ollama, vLLM, llama.cpp and LM Studio serve it under /v1: base_url = %q (%s)", root, strings.TrimSuffix(root, "/")+"/v1", in)
		case strings.HasPrefix(msg, "404 "):
			return fmt.Sprintf("hint: %s has no model %q, or no chat completions API: check name and base_url (%s); an OpenAI-compatible API root usually ends in /v1", root, m.Name, in)
		case strings.HasPrefix(msg, "405 "), strings.HasPrefix(msg, "4") && strings.Contains(msg, ", not the API's JSON error: "):
			if noVersion(root) {
				return fmt.Sprintf("hint: %s answered, but not as an OpenAI-compatible API: base_url names no API version; most servers serve it under /v1: base_url = %q (%s)", root, strings.TrimSuffix(root, "/")+"/v1", in)
			}
			return fmt.Sprintf("hint: %s answered, but not as an OpenAI-compatible API: check base_url (%s); an OpenAI-compatible API root usually ends in /v1", root, in)
		case strings.HasPrefix(msg, "cannot resolve the host name "):
			host := unresolved(msg)
			return fmt.Sprintf("hint: the host name %q does not resolve%s: check base_url's host for a typo, and that this machine reaches a DNS server (%s)", host, didYouMean(host, config.KnownHosts(), strconv.Quote), in)
		case strings.HasPrefix(msg, "connection refused: "):
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

// clientStatus says whether msg is the text of a 400 or 422 answer: the
// statuses servers give a request they cannot serve as asked.
func clientStatus(msg string) bool {
	return strings.HasPrefix(msg, "400 ") || strings.HasPrefix(msg, "422 ")
}

// noSuchModel says whether a server's message says that the model asked
// for does not exist, in the words servers use (OpenAI's "The model `x`
// does not exist", Ollama's "model \"x\" not found", LiteLLM's "Invalid
// model name passed in model=x", OpenRouter's "x is not a valid model
// ID", vLLM's and others' "unknown model").
func noSuchModel(msg, name string) bool {
	text := strings.ToLower(msg)
	if !strings.Contains(text, "model") {
		return false
	}
	for _, says := range []string{"does not exist", "not exist", "not found", "invalid model", "not a valid model", "unknown model", "no such model", "model_not_found"} {
		if strings.Contains(text, says) {
			return true
		}
	}
	return false
}

// noTools says whether a server's message says that the model takes no
// tools (Ollama: "registry.ollama.ai/library/gemma3:1b does not support
// tools"; others: "tools are not supported", "tool use is not supported").
func noTools(msg string) bool {
	text := strings.ToLower(msg)
	for _, says := range []string{"does not support tools", "tools are not supported", "tool use is not supported", "does not support tool", "tool calling is not supported", "tool_choice is not supported"} {
		if strings.Contains(text, says) {
			return true
		}
	}
	return false
}

// outOfQuota says whether a 429's message is about the account's quota or
// billing (OpenAI's insufficient_quota: "You exceeded your current quota,
// please check your plan and billing details"; Gemini says the same of a
// per-minute quota), which no retry fixes unless it is per minute.
func outOfQuota(msg string) bool {
	text := strings.ToLower(msg)
	return strings.Contains(text, "quota") || strings.Contains(text, "billing") || strings.Contains(text, "credit")
}

// noVersion says whether an API root's path has no version segment
// ("http://localhost:11434", "https://host/api"): where the servers people
// run locally serve the API under /v1, such a root is the commonest wrong
// base_url. A root with a query string or "openai" in its path (Azure's
// deployments) is left alone.
func noVersion(root string) bool {
	u, err := url.Parse(root)
	if err != nil || u.RawQuery != "" || strings.Contains(strings.ToLower(u.Path), "openai") {
		return false
	}
	for _, seg := range strings.Split(u.Path, "/") {
		if len(seg) >= 2 && (seg[0] == 'v' || seg[0] == 'V') && seg[1] >= '0' && seg[1] <= '9' {
			return false
		}
	}
	return true
}

// unresolved is the host name of the text "cannot resolve the host name
// "NAME": …", or "".
func unresolved(msg string) string {
	rest := strings.TrimPrefix(msg, "cannot resolve the host name ")
	if q, err := strconv.QuotedPrefix(rest); err == nil {
		name, _ := strconv.Unquote(q)
		return name
	}
	return ""
}
