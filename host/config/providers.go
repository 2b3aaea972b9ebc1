package config

import (
	"fmt"
	"net/url"
	"slices"
	"strings"
)

// A knownServer is a server people name as a provider (in pi's
// models.json, in other agents' settings) that speaks the OpenAI-compatible
// chat completions API: what agent.toml says for it instead.
type knownServer struct {
	name, baseURL, keyEnv string // keyEnv "": a local server, no key
}

var knownServers = map[string]knownServer{
	"ollama":     {"Ollama", "http://localhost:11434/v1", ""},
	"lmstudio":   {"LM Studio", "http://localhost:1234/v1", ""},
	"vllm":       {"vLLM", "http://localhost:8000/v1", ""},
	"llamacpp":   {"llama.cpp's server", "http://localhost:8080/v1", ""},
	"openrouter": {"OpenRouter", "https://openrouter.ai/api/v1", "OPENROUTER_API_KEY"},
	"groq":       {"Groq", "https://api.groq.com/openai/v1", "GROQ_API_KEY"},
	"anthropic":  {"Anthropic (its OpenAI SDK compatibility)", "https://api.anthropic.com/v1/", "ANTHROPIC_API_KEY"},
	"google":     {"Gemini", "https://generativelanguage.googleapis.com/v1beta/openai/", "GEMINI_API_KEY"},
	"gemini":     {"Gemini", "https://generativelanguage.googleapis.com/v1beta/openai/", "GEMINI_API_KEY"},
	"mistral":    {"Mistral", "https://api.mistral.ai/v1", "MISTRAL_API_KEY"},
	"deepseek":   {"DeepSeek", "https://api.deepseek.com/v1", "DEEPSEEK_API_KEY"},
	"xai":        {"xAI", "https://api.x.ai/v1", "XAI_API_KEY"},
	"together":   {"Together AI", "https://api.together.xyz/v1", "TOGETHER_API_KEY"},
	"fireworks":  {"Fireworks", "https://api.fireworks.ai/inference/v1", "FIREWORKS_API_KEY"},
	"cerebras":   {"Cerebras", "https://api.cerebras.ai/v1", "CEREBRAS_API_KEY"},
}

// providerAdvice is what a provider that is neither "openai" nor
// "scripted" should have been written as: in lower case, or, for a server
// named by its own name, provider = "openai" with the server's base_url
// (and the variable its key is usually in); else "".
func providerAdvice(provider string) string {
	norm := strings.NewReplacer("-", "", "_", "", ".", "", " ", "").Replace(strings.ToLower(provider))
	switch norm {
	case "openai", "scripted":
		return fmt.Sprintf(": provider names are lower case: %q", norm)
	case "azure", "azureopenai":
		return `: Azure OpenAI speaks the OpenAI-compatible API: provider = "openai", base_url = your deployment's URL with its api-version query ("https://RESOURCE.openai.azure.com/openai/deployments/DEPLOYMENT?api-version=2024-10-21"), and headers = { "api-key" = "AZURE_OPENAI_API_KEY" }`
	}
	s, ok := knownServers[norm]
	if !ok {
		return ": any server that speaks the OpenAI-compatible chat completions API is provider = \"openai\" with its base_url"
	}
	key := ""
	if s.keyEnv != "" {
		key = fmt.Sprintf(" and api_key_env = %q", s.keyEnv)
	}
	return fmt.Sprintf(": %s speaks the OpenAI-compatible API: provider = \"openai\", base_url = %q%s", s.name, s.baseURL, key)
}

// endpoints are the paths a client adds to an API root, which a base_url
// that is copied from a request line ends in.
var endpoints = []string{"/chat/completions", "/completions", "/responses", "/messages", "/embeddings", "/models"}

// baseURLAdvice is, for a base_url that is not an API root, the one to
// write: without the endpoint a client adds (".../v1/chat/completions"),
// or with the scheme it lacks ("localhost:11434/v1"); else "".
func baseURLAdvice(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		if v, err := url.Parse("http://" + raw); err == nil && v.Host != "" && !strings.Contains(raw, "://") {
			scheme := "http"
			if h := v.Hostname(); h != "localhost" && h != "127.0.0.1" && h != "::1" {
				scheme = "https"
			}
			return fmt.Sprintf("; it lacks its scheme: write %q", scheme+"://"+raw)
		}
		return ""
	}
	for _, e := range endpoints {
		if p, ok := strings.CutSuffix(strings.TrimSuffix(u.Path, "/"), e); ok {
			root := *u
			root.Path = p
			root.RawPath = ""
			return fmt.Sprintf(" is an endpoint, not the API root: the client adds %s; write %q", e, root.String())
		}
	}
	return ""
}

// KnownHosts are the host names of the hosted servers agent.toml knows
// by name, and OpenAI's: a base_url whose host does not resolve is
// compared with them for a typo.
func KnownHosts() []string {
	hosts := []string{"api.openai.com"}
	for _, s := range knownServers {
		if u, err := url.Parse(s.baseURL); err == nil && u.Hostname() != "localhost" && !slices.Contains(hosts, u.Hostname()) {
			hosts = append(hosts, u.Hostname())
		}
	}
	slices.Sort(hosts)
	return hosts
}
