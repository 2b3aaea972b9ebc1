// Package config reads agent.toml, the file that says which model, which
// plugins with which grants, and which hooks in which order, and wires
// them into a host.Agent. It is the only package of wasmagent that imports
// github.com/BurntSushi/toml.
//
// Reading is strict: an unknown key, a wrong type, a missing file, a bad
// glob or a duplicate tool name is an error that names the file, the line
// and the key. Paths are relative to the configuration file. Environment
// variables are read only where the file says so: the model's api_key_env,
// and configuration values written as {env = "NAME"}.
package config

import "time"

// File is agent.toml, decoded and checked, with paths made absolute.
type File struct {
	Path    string       `toml:"-"`
	Model   Model        `toml:"model"`
	Agent   Agent        `toml:"agent"`
	Runtime Runtime      `toml:"runtime"`
	Tools   []ToolPlugin `toml:"tool"`
	Hooks   []HookPlugin `toml:"hook"`
	Audit   Audit        `toml:"audit"`
	// Sessions is [sessions]: where conversations are kept.
	Sessions Sessions `toml:"sessions"`
	Events   Events   `toml:"events"`
	MCP      MCP      `toml:"mcp"`
	// Serve is [serve]: "wasmagent serve".
	Serve Serve `toml:"serve"`
	// Telemetry is [telemetry]: OpenTelemetry traces and metrics.
	Telemetry Telemetry `toml:"telemetry"`
	// Cluster is [cluster]: serve's sessions on NATS JetStream.
	Cluster Cluster `toml:"cluster"`

	lines lineIndex
}

// Model is [model].
type Model struct {
	Provider  string `toml:"provider"` // "openai" or "scripted"
	Name      string `toml:"name"`
	BaseURL   string `toml:"base_url"`
	APIKeyEnv string `toml:"api_key_env"`
	// Headers are sent with every request: header name → the name of the
	// environment variable that holds the value (an Azure "api-key", a
	// gateway's own token).
	Headers         map[string]string `toml:"headers"`
	Temperature     *float64          `toml:"temperature"`
	MaxTokens       int64             `toml:"max_tokens"`
	ReasoningEffort string            `toml:"reasoning_effort"`
	Timeout         Duration          `toml:"timeout"`
	Retries         *int              `toml:"retries"`
	Script          string            `toml:"script"` // provider "scripted": the script file
	// MaxResponseBytes caps the bytes of one streamed response (default
	// 64 MiB).
	MaxResponseBytes Size `toml:"max_response_bytes"`
}

// Agent is [agent].
type Agent struct {
	SystemPrompt     string `toml:"system_prompt"`
	SystemPromptFile string `toml:"system_prompt_file"`
	Thinking         string `toml:"thinking"`
	ToolExecution    string `toml:"tool_execution"`
	MaxConcurrency   int    `toml:"max_concurrency"`
	MaxTurns         int    `toml:"max_turns"`
	SteeringMode     string `toml:"steering_mode"`
	FollowUpMode     string `toml:"follow_up_mode"`
	// MaxToolCalls is the most calls of one message that run; later ones
	// are answered with an error result (default 128; -1: no cap).
	MaxToolCalls int `toml:"max_tool_calls"`
	// MaxArgumentBytes caps one call's arguments, as sent and as
	// validated (default 16 MiB).
	MaxArgumentBytes Size `toml:"max_argument_bytes"`
}

// Events is [events]: what event lines carry for clients outside the
// process (run --json and later transports), and their byte budget per
// message (host/eventwire).
type Events struct {
	Updates string `toml:"updates"` // "pi" (default), "deltas" or "all"
	Floor   Size   `toml:"floor"`   // default 4 MiB
	Ratio   int64  `toml:"ratio"`   // default 4
}

// Sessions is [sessions].
type Sessions struct {
	// Dir holds the session files, one subdirectory per working
	// directory; empty means the user's state directory.
	Dir string `toml:"dir"`
}

// Runtime is [runtime].
type Runtime struct {
	CacheDir           string `toml:"cache_dir"`
	MaxMemory          Size   `toml:"max_memory"`
	MaxConcurrentCalls int    `toml:"max_concurrent_calls"`
	LogLevel           string `toml:"log_level"`
	// ImageMemory is how an instance gets its plugin's image: "auto" (or
	// empty), "copy" or "map" (docs/runtime.md, "Images").
	ImageMemory string `toml:"image_memory"`
	// MaxCompileCost raises (or lowers) the compile-cost cap on one
	// function of a plugin, runtime.Options.MaxCompileCost; nil means
	// runtime.MaxFunctionCompileCost. A positive integer.
	MaxCompileCost *int64 `toml:"max_compile_cost"`
	// MaxModuleBytes is the largest plugin file loaded,
	// runtime.Options.MaxModuleBytes (default 128 MiB).
	MaxModuleBytes Size `toml:"max_module_bytes"`
}

// Plugin is what [[tool]] and [[hook]] entries share.
type Plugin struct {
	Plugin string           `toml:"plugin"`
	Name   string           `toml:"name"`
	SHA256 string           `toml:"sha256"`
	Pool   *int             `toml:"pool"`
	Image  *bool            `toml:"image"` // false: every instance runs the plugin's init (docs/runtime.md, "Images")
	Config map[string]Value `toml:"config"`
	Grants Grants           `toml:"grants"`
}

// ToolPlugin is a [[tool]] entry: a plugin whose tools the agent gets.
type ToolPlugin struct {
	Plugin
	Disable    []string          `toml:"disable"`
	Sequential []string          `toml:"sequential"`
	Rename     map[string]string `toml:"rename"`
}

// HookPlugin is a [[hook]] entry: a plugin whose hooks run, for the tools
// whose names match Tools (all when empty), at place Order (lower first;
// equal orders keep the file's order).
type HookPlugin struct {
	Plugin
	Tools []string `toml:"tools"`
	Order int      `toml:"order"`
	// Gate runs the beforeToolCall hook after every hook that is not a
	// gate, on the final arguments, and forbids it to rewrite them (a
	// plugin may also declare itself a gate).
	Gate bool `toml:"gate"`
	// OnError, OnTimeout and OnAsk are "block" (the default) or "allow":
	// what a failure, a timeout, and a question nobody can answer (no
	// interactive approver) decide.
	OnError   string `toml:"on_error"`
	OnTimeout string `toml:"on_timeout"`
	OnAsk     string `toml:"on_ask"`
}

// Grants is [tool.grants] / [hook.grants].
type Grants struct {
	Dirs            []Dir    `toml:"dirs"`
	Hosts           []string `toml:"hosts"`
	Memory          Size     `toml:"memory"`
	Timeout         Duration `toml:"timeout"`
	MaxInput        Size     `toml:"max_input"`
	MaxOutput       Size     `toml:"max_output"`
	MaxHTTPResponse Size     `toml:"max_http_response"`
	MaxVars         Size     `toml:"max_vars"`
	// Per-call caps on work done by the host (runtime.Grants).
	MaxHostAlloc    Size `toml:"max_host_alloc"`
	MaxUpdates      int  `toml:"max_updates"`
	MaxUpdateBytes  Size `toml:"max_update_bytes"`
	MaxLog          Size `toml:"max_log"`
	MaxVarWrites    Size `toml:"max_var_writes"`
	MaxHTTPRequests int  `toml:"max_http_requests"`
	// What a call may add to its writable dirs: bytes, and files,
	// directories and links created (runtime.Grants.MaxDiskBytes).
	MaxDisk     Size   `toml:"max_disk"`
	MaxNewFiles int    `toml:"max_new_files"`
	LogLevel    string `toml:"log_level"`
	// Clock grants the real wall clock (the monotonic clock is always
	// real).
	Clock bool `toml:"clock"`
	// Credentials are headers the host adds to requests to a granted host,
	// with values read from the host's environment; the plugin never sees
	// them.
	Credentials []Credential `toml:"credentials"`
}

// Credential is one entry of grants.credentials.
type Credential struct {
	Host   string `toml:"host"`
	Header string `toml:"header"`
	Env    string `toml:"env"`
	Prefix string `toml:"prefix"`
}

// Dir is one directory grant.
type Dir struct {
	Host  string `toml:"host"`
	Guest string `toml:"guest"`
	Write bool   `toml:"write"`
}

// Duration is a TOML string such as "30s" or "2m".
type Duration struct{ time.Duration }
