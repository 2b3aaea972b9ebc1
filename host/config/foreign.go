package config

import "strings"

// foreignKeys are keys of the configurations other agents read — pi's
// settings.json and models.json, Claude Code's settings.json, Codex CLI's
// config.toml — that their users write in agent.toml by habit, with what
// agent.toml has instead. An unknown key is looked up here (by its last
// part, in lower case without "_" and "-") before the nearest known key
// is suggested: "did you mean" finds a typo, not another vocabulary.
var foreignKeys = map[string]string{
	// The model.
	"model":           `the model's name on the server is [model] name = "…"`,
	"defaultmodel":    `the model's name on the server is [model] name = "…"`,
	"modelid":         `the model's name on the server is [model] name = "…"`,
	"provider":        `the server is [model] provider = "openai" (any OpenAI-compatible API) and base_url`,
	"defaultprovider": `the server is [model] provider = "openai" (any OpenAI-compatible API) and base_url`,
	"modelprovider":   `the server is [model] provider = "openai" (any OpenAI-compatible API) and base_url`,
	"modelproviders":  `one model per agent.toml: [model] provider = "openai", base_url and name`,
	"providers":       `one model per agent.toml: [model] provider = "openai", base_url and name`,
	"apikey":          `a key is never written in agent.toml: [model] api_key_env = "NAME" names the environment variable that holds it`,
	"openaiapikey":    `a key is never written in agent.toml: [model] api_key_env = "NAME" names the environment variable that holds it`,
	"apikeyhelper":    `a key is never written in agent.toml: [model] api_key_env = "NAME" names the environment variable that holds it`,
	"baseurl":         `the API root is [model] base_url = "…" (Ollama: "http://localhost:11434/v1")`,
	"apibase":         `the API root is [model] base_url = "…" (Ollama: "http://localhost:11434/v1")`,
	"maxoutputtokens": `[model] max_tokens`,
	// Reasoning.
	"thinking":             `the reasoning level is [agent] thinking = "off", "minimal", "low", "medium", "high" or "xhigh"`,
	"thinkinglevel":        `the reasoning level is [agent] thinking = "off", "minimal", "low", "medium", "high" or "xhigh"`,
	"defaultthinkinglevel": `the reasoning level is [agent] thinking = "off", "minimal", "low", "medium", "high" or "xhigh"`,
	"modelreasoningeffort": `the reasoning level is [agent] thinking = "off", "minimal", "low", "medium", "high" or "xhigh"`,
	"reasoning":            `the reasoning level is [agent] thinking = "off", "minimal", "low", "medium", "high" or "xhigh"`,
	// What may run.
	"permissions":           `which calls run is a policy hook's to decide: [[hook]] plugin = "plugins/policy/policy.wasm", its rules in config (docs/hooks.md)`,
	"allow":                 `which calls run is a policy hook's to decide: [[hook]] plugin = "plugins/policy/policy.wasm", its rules in config (docs/hooks.md)`,
	"deny":                  `which calls run is a policy hook's to decide: [[hook]] plugin = "plugins/policy/policy.wasm", its rules in config (docs/hooks.md)`,
	"allowedtools":          `the tools are the [[tool]] entries, and a policy hook decides which calls run (docs/hooks.md)`,
	"disallowedtools":       `the tools are the [[tool]] entries, and a policy hook decides which calls run (docs/hooks.md)`,
	"approvalpolicy":        `a hook that asks is [[hook]] with on_ask (docs/hooks.md); a policy hook decides which calls run`,
	"sandboxmode":           `every plugin runs sandboxed, granted only its [tool.grants] (dirs with write = true for writes)`,
	"sandbox":               `every plugin runs sandboxed, granted only its [tool.grants] (dirs with write = true for writes)`,
	"additionaldirectories": `a directory a tool may use is granted in its [tool.grants] dirs = [{ host = "…", guest = "/work" }]`,
	// Tools and hooks.
	"mcpservers":  `wasmagent does not call MCP servers: its tools are [[tool]] plugins (wasmagent mcp serves them to MCP clients)`,
	"hooks":       `hooks are [[hook]] entries: a plugin with beforeToolCall (Claude Code's PreToolUse) or afterToolCall (PostToolUse)`,
	"pretooluse":  `a hook before a call is a [[hook]] plugin with beforeToolCall`,
	"posttooluse": `a hook after a call is a [[hook]] plugin with afterToolCall`,
	"extensions":  `tools are [[tool]] plugins and hooks [[hook]] plugins: WebAssembly, docs/plugins.md`,
	"skills":      `tools are [[tool]] plugins and hooks [[hook]] plugins: WebAssembly, docs/plugins.md`,
	// Sessions and the rest.
	"sessiondir": `sessions are kept under [sessions] dir = "…"`,
	"env":        `environment variables are read only where a key says so: [model] api_key_env and headers, and configuration values {env = "NAME"}`,
}

// foreign is " (what agent.toml has instead)" for an unknown key of
// another agent's vocabulary, or "".
func foreign(key string) string {
	last := key[strings.LastIndex(key, ".")+1:]
	if i := strings.LastIndex(last, "]"); i >= 0 {
		last = last[i+1:]
	}
	norm := strings.NewReplacer("_", "", "-", "").Replace(strings.ToLower(last))
	if say, ok := foreignKeys[norm]; ok {
		return " (" + say + ")"
	}
	return ""
}
