package mcp

import (
	"crypto/sha256"
	"crypto/subtle"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/wasmagent/wasmagent/internal/netaddr"
)

// Defaults of HTTPOptions.
const (
	DefaultSessionTimeout = 30 * time.Minute
	DefaultMaxBodyBytes   = 4 << 20
)

// HTTPOptions configure the streamable HTTP transport.
type HTTPOptions struct {
	// Token, if not empty, is the bearer token every request must carry
	// ("Authorization: Bearer TOKEN", the scheme in any case); it is
	// compared in constant time.
	Token string
	// AllowedOrigins are the browser origins (scheme://host[:port]) whose
	// requests are served. A request without Origin (not from a browser)
	// is served; so is one from a loopback origin to a loopback host. Any
	// other Origin is refused with 403, as the MCP specification asks, so
	// that a web page cannot drive the tools.
	AllowedOrigins []string
	// SessionTimeout ends a session idle this long (zero:
	// DefaultSessionTimeout).
	SessionTimeout time.Duration
	// MaxBodyBytes bounds a request body (zero: DefaultMaxBodyBytes);
	// larger ones get 413.
	MaxBodyBytes int64
}

// Handler serves MCP's streamable HTTP transport (every path).
func (s *Server) Handler(o HTTPOptions) http.Handler {
	if o.SessionTimeout <= 0 {
		o.SessionTimeout = DefaultSessionTimeout
	}
	if o.MaxBodyBytes <= 0 {
		o.MaxBodyBytes = DefaultMaxBodyBytes
	}
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s.srv }, &sdk.StreamableHTTPOptions{
		SessionTimeout:      o.SessionTimeout,
		MaxRequestBodyBytes: o.MaxBodyBytes,
		Logger:              s.opts.Logger,
	})
	allowed := map[string]bool{}
	for _, origin := range o.AllowedOrigins {
		allowed[strings.ToLower(strings.TrimRight(origin, "/"))] = true
	}
	want := sha256.Sum256([]byte(o.Token))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if origin := r.Header.Get("Origin"); origin != "" && !allowed[strings.ToLower(origin)] && !(loopbackOrigin(origin) && loopbackHost(r.Host)) {
			http.Error(w, "forbidden: the Origin "+origin+" is not allowed (add it to [mcp] allowed_origins)", http.StatusForbidden)
			return
		}
		if o.Token != "" {
			got, ok := bearerToken(r.Header.Get("Authorization"))
			sum := sha256.Sum256([]byte(got))
			if subtle.ConstantTimeCompare(sum[:], want[:]) != 1 || !ok {
				w.Header().Set("WWW-Authenticate", `Bearer realm="wasmagent"`)
				http.Error(w, "unauthorized: a bearer token is required (Authorization: Bearer TOKEN)", http.StatusUnauthorized)
				return
			}
		}
		if r.ContentLength > o.MaxBodyBytes {
			http.Error(w, "request body too large", http.StatusRequestEntityTooLarge)
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, o.MaxBodyBytes)
		h.ServeHTTP(w, r)
	})
}

// bearerToken is the token of an "Authorization: Bearer TOKEN" header.
// The scheme is matched without regard to case (RFC 7235, 2.1) and may
// be followed by more than one space.
func bearerToken(header string) (string, bool) {
	scheme, token, ok := strings.Cut(header, " ")
	return strings.TrimLeft(token, " "), ok && strings.EqualFold(scheme, "Bearer")
}

// loopbackOrigin reports whether an Origin names this machine.
func loopbackOrigin(origin string) bool {
	u, err := url.Parse(origin)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && IsLoopback(u.Hostname())
}

func loopbackHost(hostport string) bool {
	host, _, err := net.SplitHostPort(hostport)
	if err != nil {
		host = hostport
	}
	return IsLoopback(host)
}

// IsLoopback reports whether host (a name or an address, without port)
// is this machine only: "localhost" or a loopback address.
func IsLoopback(host string) bool { return netaddr.IsLoopback(host) }
