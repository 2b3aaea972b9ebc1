package cli

import "strings"

// agentFlags are flags of pi and Claude Code that their users type here
// by habit, with what wasmagent has instead: said when the flag is not
// one of the command's own and nothing close to it is.
var agentFlags = map[string]string{
	"p":                    "wasmagent run PROMPT (or wasmagent -p PROMPT) prints the answer and exits, as claude -p and pi -p do (chat is the interactive session)",
	"print":                "wasmagent run PROMPT (or wasmagent -p PROMPT) prints the answer and exits, as claude -p and pi -p do (chat is the interactive session)",
	"model":                "the model is [model] name in agent.toml (run, chat and rpc take --model NAME), on the server base_url names",
	"provider":             "the server is [model] base_url in agent.toml: any OpenAI-compatible API",
	"api-key":              "the key is read from the environment variable [model] api_key_env names (default OPENAI_API_KEY), never from the command line",
	"resume":               "wasmagent chat --resume (-r) lists this directory's sessions to resume one, as does wasmagent sessions ls; --session ID continues one, --continue (-c) the latest",
	"r":                    "wasmagent chat --resume (-r) lists this directory's sessions to resume one, as does wasmagent sessions ls; --session ID continues one, --continue (-c) the latest",
	"c":                    "--continue (-c) continues the latest session of this directory: wasmagent chat -c, or wasmagent run -c PROMPT",
	"continue":             "--continue (-c) continues the latest session of this directory: wasmagent chat -c, or wasmagent run -c PROMPT",
	"mode":                 "--json prints every event as a JSON line (pi's --mode json; run takes --mode json too); wasmagent rpc is pi's --mode rpc",
	"output-format":        "--json prints every event as a JSON line",
	"system-prompt":        "the system prompt is [agent] system_prompt (or system_prompt_file) in agent.toml",
	"append-system-prompt": "the system prompt is [agent] system_prompt (or system_prompt_file) in agent.toml",
	"thinking":             "the reasoning effort is [agent] thinking in agent.toml (run, chat and rpc take --thinking LEVEL)",
	"session-dir":          "sessions are kept under [sessions] dir in agent.toml (run, chat, rpc and sessions take --session-dir DIR)",
	"export":               "wasmagent sessions export ID writes a session as Markdown (--format jsonl: the file as it is)",
	"list-models":          "the model is [model] name in agent.toml; the server lists its own (GET BASE_URL/models; Ollama: ollama list)",
	"tools":                "the tools are the [[tool]] entries of agent.toml: wasmagent tools lists them",
	"allowedTools":         "the tools are the [[tool]] entries of agent.toml, and a policy hook decides which calls run (docs/hooks.md)",
	"allowed-tools":        "the tools are the [[tool]] entries of agent.toml, and a policy hook decides which calls run (docs/hooks.md)",
	"verbose":              "--log-level debug shows what plugins and the runtime log",
	"debug":                "--log-level debug shows what plugins and the runtime log",
}

// agentFlagAdvice is ": ADVICE" for a flag of pi or Claude Code, or "".
func agentFlagAdvice(name string) string {
	if say, ok := agentFlags[name]; ok {
		return ": " + say
	}
	return ""
}

// flagName is a flag as it is written: -p, --print.
func flagName(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

// promptLike says whether a word given where a command goes reads as a
// prompt ("wasmagent 'what is in here?'", as pi and claude take one).
func promptLike(s string) bool {
	return strings.ContainsAny(s, " \t\n?") || len(s) > 24
}
