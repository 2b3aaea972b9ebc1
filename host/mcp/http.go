package mcp

import (
	"crypto/sha256"
	"crypto/subtle"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/wasmagent/wasmagent/internal/netaddr"
	"github.com/wasmagent/wasmagent/internal/writedeadline"
)

// Defaults of HTTPOptions.
const (
	DefaultSessionTimeout = 30 * time.Minute
	DefaultMaxBodyBytes   = 4 << 20
	DefaultMaxSessions    = 1000
	DefaultReadTimeout    = time.Minute
	DefaultWriteTimeout   = 30 * time.Second
	DefaultIdleTimeout    = 2 * time.Minute
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
	// MaxSessions bounds the sessions open at once (zero:
	// DefaultMaxSessions): an initialize past it gets 503 until one ends
	// (a client's DELETE, or SessionTimeout).
	MaxSessions int
	// ReadTimeout bounds reading one request, header and body (zero:
	// DefaultReadTimeout); a client that trickles it is cut off. Used by
	// HTTPServer.
	ReadTimeout time.Duration
	// WriteTimeout bounds each write of an answer or an event stream
	// (zero: DefaultWriteTimeout): a client that stops reading is cut off
	// and does not hold its session's stream.
	WriteTimeout time.Duration
	// IdleTimeout closes a kept-alive connection idle this long (zero:
	// DefaultIdleTimeout). Used by HTTPServer.
	IdleTimeout time.Duration
}

func (o HTTPOptions) withDefaults() HTTPOptions {
	if o.SessionTimeout <= 0 {
		o.SessionTimeout = DefaultSessionTimeout
	}
	if o.MaxBodyBytes <= 0 {
		o.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if o.MaxSessions <= 0 {
		o.MaxSessions = DefaultMaxSessions
	}
	if o.ReadTimeout <= 0 {
		o.ReadTimeout = DefaultReadTimeout
	}
	if o.WriteTimeout <= 0 {
		o.WriteTimeout = DefaultWriteTimeout
	}
	if o.IdleTimeout <= 0 {
		o.IdleTimeout = DefaultIdleTimeout
	}
	return o
}

// HTTPServer returns an http.Server for s.Handler(o) with the bounds a
// server facing clients it does not trust needs: a request's header must
// come within 10 s and the whole request within o.ReadTimeout, headers
// are at most 64 KiB, and kept-alive connections close after
// o.IdleTimeout. Event streams last: they are bounded by o.WriteTimeout
// per write instead.
func (s *Server) HTTPServer(o HTTPOptions) *http.Server {
	o = o.withDefaults()
	return &http.Server{
		Handler:           s.Handler(o),
		ReadHeaderTimeout: min(10*time.Second, o.ReadTimeout),
		ReadTimeout:       o.ReadTimeout,
		IdleTimeout:       o.IdleTimeout,
		MaxHeaderBytes:    64 << 10,
	}
}

// Handler serves MCP's streamable HTTP transport (every path).
func (s *Server) Handler(o HTTPOptions) http.Handler {
	o = o.withDefaults()
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
		if r.Method == http.MethodPost && r.Header.Get("Mcp-Session-Id") == "" && s.sessionCount() >= o.MaxSessions {
			w.Header().Set("Retry-After", "60")
			http.Error(w, fmt.Sprintf("too many sessions: this server keeps at most %d at once; end one (DELETE with its Mcp-Session-Id) or wait for an idle one to time out", o.MaxSessions), http.StatusServiceUnavailable)
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, o.MaxBodyBytes)
		// A client that stops reading an event stream fails the write (the
		// SDK then ends that stream) instead of blocking it, and the
		// session's other streams, for ever.
		h.ServeHTTP(writedeadline.New(w, o.WriteTimeout), r)
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

// sessionCount is the number of sessions open (over every transport).
func (s *Server) sessionCount() int {
	n := 0
	for range s.srv.Sessions() {
		n++
	}
	return n
}
