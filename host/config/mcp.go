package config

import (
	"fmt"
	"net/url"
	"os"
	"strings"

	"github.com/wasmagent/wasmagent/internal/words"
)

// MCP is [mcp]: what "wasmagent mcp --http" needs. stdio needs none of it.
type MCP struct {
	// TokenEnv names the environment variable, TokenFile the file (relative
	// to the configuration), holding the bearer token HTTP clients must
	// send. One of them is required to listen on anything but loopback.
	TokenEnv  string `toml:"token_env"`
	TokenFile string `toml:"token_file"`
	// AllowedOrigins are browser origins (scheme://host[:port]) allowed to
	// call; others are refused (loopback pages may call a loopback server).
	AllowedOrigins []string `toml:"allowed_origins"`
	// SessionTimeout ends idle sessions (default 30m).
	SessionTimeout Duration `toml:"session_timeout"`
	// MaxBody bounds a request body (default 4MiB).
	MaxBody Size `toml:"max_body"`
}

// minTokenBytes is the shortest bearer token accepted: a guessable one is
// no protection.
const minTokenBytes = 16

func (c *checker) checkMCP() {
	m := &c.f.MCP
	if m.TokenEnv != "" && m.TokenFile != "" {
		c.errorf("mcp.token_file", "set token_env or token_file, not both")
	}
	m.TokenFile = c.abs("mcp.token_file", m.TokenFile)
	for i, o := range m.AllowedOrigins {
		u, err := url.Parse(o)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || (u.Path != "" && u.Path != "/") || u.RawQuery != "" {
			c.errorf(fmt.Sprintf("mcp.allowed_origins[%d]", i), "%q is not an origin (scheme://host[:port], as a browser sends it)", o)
		}
	}
}

// MCPToken reads the bearer token [mcp] names: "" when it names none. An
// empty, short or unreadable token is an error naming the key.
func (f *File) MCPToken() (string, error) {
	m := f.MCP
	var tok, key string
	switch {
	case m.TokenEnv != "":
		key, tok = "mcp.token_env", os.Getenv(m.TokenEnv)
		if tok == "" {
			return "", f.errorf(key, "the environment variable %s is empty or not set", m.TokenEnv)
		}
	case m.TokenFile != "":
		key = "mcp.token_file"
		b, err := os.ReadFile(m.TokenFile)
		if err != nil {
			return "", f.errorf(key, "%s", fileProblem(m.TokenFile, err))
		}
		tok = strings.TrimSpace(string(b))
	default:
		return "", nil
	}
	if len(tok) < minTokenBytes {
		return "", f.errorf(key, "the token is %s; use at least %d random ones (openssl rand -hex 32)", words.Count(len(tok), "byte"), minTokenBytes)
	}
	return tok, nil
}
