package config

import (
	"net"
	"os"
)

// Serve is [serve]: what "wasmagent serve" needs (docs/serve.md).
type Serve struct {
	// Addr is where to listen (default 127.0.0.1:8080). Anything but a
	// loopback address needs tokens.
	Addr string `toml:"addr"`
	// TokensFile (relative to the configuration) or TokensEnv (an
	// environment variable's name) holds the bearer tokens, hashed: lines
	// "NAME sha256:HEX" (docs/serve.md). Not both.
	TokensFile string `toml:"tokens_file"`
	TokensEnv  string `toml:"tokens_env"`
	// Dir keeps the server's sessions and event journals (default: "serve"
	// under the sessions directory).
	Dir string `toml:"dir"`
	// Per-token quotas; 0 is none.
	MaxSessions           int `toml:"max_sessions"`
	MaxRuns               int `toml:"max_runs"`
	MaxToolCallsPerMinute int `toml:"max_tool_calls_per_minute"`
	// MaxStreams bounds the event streams one token holds open at once
	// (0: serve's default, 1024); past it, 429.
	MaxStreams int `toml:"max_streams"`
	// MaxBody caps a request body, MaxPrompt a prompt's text and images
	// (413 past them).
	MaxBody   Size `toml:"max_body"`
	MaxPrompt Size `toml:"max_prompt"`
	// DrainTimeout is how long SIGTERM lets running runs finish before
	// aborting them (default 30s).
	DrainTimeout Duration `toml:"drain_timeout"`
	// Heartbeat is how often an idle event stream gets a comment line
	// (default 15s).
	Heartbeat Duration `toml:"heartbeat"`
}

func (c *checker) checkServe() {
	s := &c.f.Serve
	if s.TokensEnv != "" && s.TokensFile != "" {
		c.errorf("serve.tokens_file", "set tokens_env or tokens_file, not both")
	}
	s.TokensFile = c.abs("serve.tokens_file", s.TokensFile)
	s.Dir = c.abs("serve.dir", s.Dir)
	if s.Addr != "" {
		if _, _, err := net.SplitHostPort(s.Addr); err != nil {
			c.errorf("serve.addr", "%q is not host:port (127.0.0.1:8080, [::1]:8080, :8080): %v", s.Addr, err)
		}
	}
	for key, v := range map[string]int{"serve.max_sessions": s.MaxSessions, "serve.max_runs": s.MaxRuns, "serve.max_tool_calls_per_minute": s.MaxToolCallsPerMinute} {
		if v < 0 {
			c.errorf(key, "%d is negative (0 is no limit)", v)
		}
	}
	if s.MaxStreams < 0 {
		c.errorf("serve.max_streams", "%d is negative (0 is the default, 1024)", s.MaxStreams)
	}
	if s.Heartbeat.Duration != 0 && s.Heartbeat.Duration < 1e9 {
		c.errorf("serve.heartbeat", "%s is under a second", s.Heartbeat.Duration)
	}
}

// ServeTokens reads the token list [serve] names: its bytes and where
// they come from (for errors), or nil when it names none. An unset
// variable or an unreadable file is an error naming the key.
func (f *File) ServeTokens() (data []byte, where string, err error) {
	s := f.Serve
	switch {
	case s.TokensEnv != "":
		v := os.Getenv(s.TokensEnv)
		if v == "" {
			return nil, "", f.errorf("serve.tokens_env", "the environment variable %s is empty or not set", s.TokensEnv)
		}
		return []byte(v), "$" + s.TokensEnv, nil
	case s.TokensFile != "":
		b, err := os.ReadFile(s.TokensFile)
		if err != nil {
			return nil, "", f.errorf("serve.tokens_file", "%s", fileProblem(s.TokensFile, err))
		}
		return b, s.TokensFile, nil
	}
	return nil, "", nil
}
