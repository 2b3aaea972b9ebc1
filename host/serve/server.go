package serve

import (
	"errors"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/wasmagent/wasmagent/internal/writedeadline"
)

// Options configure a Server.
type Options struct {
	// Backend keeps the sessions (required).
	Backend Backend
	// Tokens are the bearer tokens that may call the API; none means no
	// auth, every caller the owner LocalOwner (only for loopback: the CLI
	// refuses another address without tokens).
	Tokens []Token
	// Quota applies to each token (and to LocalOwner).
	Quota Quota
	// MaxBodyBytes caps a request body (413 past it); 0 is DefaultMaxBody.
	MaxBodyBytes int64
	// MaxPromptBytes caps a prompt, steer or follow_up: its text and the
	// base64 of its images (413 past it); 0 is DefaultMaxPrompt.
	MaxPromptBytes int
	// Heartbeat is how often an idle event stream gets a comment line; 0
	// is DefaultHeartbeat.
	Heartbeat time.Duration
	// MaxStreams bounds the event streams one owner holds open at once on
	// this server (429 past it); 0 is DefaultMaxStreams. Each open stream
	// holds a connection and what the backend buffers for it, so without
	// a bound a client opening streams it never reads would grow the
	// server without end.
	MaxStreams int
	// Metrics, when not nil, is served at GET /metrics (Prometheus text),
	// to any of Tokens (the figures are the whole server's).
	Metrics http.Handler
	// Web, when not nil, is served at / (the page to watch sessions).
	Web http.Handler
	// Log receives what the server does not tell clients (internal errors).
	Log *slog.Logger
}

// Defaults of Options.
const (
	DefaultMaxBody    = 8 << 20
	DefaultMaxPrompt  = 4 << 20
	DefaultHeartbeat  = 15 * time.Second
	DefaultMaxStreams = 1024
)

// Server is the HTTP API over a Backend.
type Server struct {
	o   Options
	mux *http.ServeMux

	mu       sync.Mutex
	draining string         // why new runs are refused ("" while taking them)
	streams  map[string]int // event streams open, per owner
	stop     chan struct{}  // closed by Stop: event streams end
	stopped  bool

	streamWriteTimeout time.Duration // tests: sseWriteTimeout when 0
}

// route is one line of the API: the table the mux and the OpenAPI test
// both read.
type route struct {
	method, path string
	handle       func(*Server, http.ResponseWriter, *http.Request, Caller)
}

var routes = []route{
	{"POST", "/v1/sessions", (*Server).create},
	{"GET", "/v1/sessions", (*Server).list},
	{"GET", "/v1/sessions/{id}", (*Server).get},
	{"DELETE", "/v1/sessions/{id}", (*Server).delete},
	{"GET", "/v1/sessions/{id}/messages", (*Server).messages},
	{"POST", "/v1/sessions/{id}/prompt", command("prompt")},
	{"POST", "/v1/sessions/{id}/steer", command("steer")},
	{"POST", "/v1/sessions/{id}/follow_up", command("follow_up")},
	{"POST", "/v1/sessions/{id}/abort", command("abort")},
	{"GET", "/v1/sessions/{id}/events", (*Server).events},
}

// OpenAPIPath is where the API's description is served (without auth).
const OpenAPIPath = "/v1/openapi.json"

// New returns a server; its Handler serves the API.
func New(o Options) (*Server, error) {
	if o.Backend == nil {
		return nil, errors.New("serve: no backend")
	}
	if o.MaxBodyBytes <= 0 {
		o.MaxBodyBytes = DefaultMaxBody
	}
	if o.MaxPromptBytes <= 0 {
		o.MaxPromptBytes = DefaultMaxPrompt
	}
	if o.Heartbeat <= 0 {
		o.Heartbeat = DefaultHeartbeat
	}
	if o.MaxStreams <= 0 {
		o.MaxStreams = DefaultMaxStreams
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	s := &Server{o: o, mux: http.NewServeMux(), stop: make(chan struct{}), streams: map[string]int{}}
	allowed := map[string][]string{}
	for _, r := range routes {
		s.mux.HandleFunc(r.method+" "+r.path, s.authed(r.handle))
		allowed[r.path] = append(allowed[r.path], r.method)
	}
	for path, methods := range allowed {
		s.mux.HandleFunc(path, methodNotAllowed(methods))
	}
	s.mux.HandleFunc("GET "+OpenAPIPath, serveOpenAPI)
	s.mux.HandleFunc("/v1/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusNotFound, "not_found", "no such route: "+r.Method+" "+r.URL.Path)
	})
	if o.Metrics != nil {
		s.mux.HandleFunc("GET /metrics", s.authed(func(_ *Server, w http.ResponseWriter, r *http.Request, _ Caller) {
			o.Metrics.ServeHTTP(w, r)
		}))
	}
	if o.Web != nil {
		s.mux.Handle("/", o.Web)
	} else {
		s.mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
			writeError(w, http.StatusNotFound, "not_found", "no such route: "+r.Method+" "+r.URL.Path+" (the API is under /v1/)")
		})
	}
	return s, nil
}

// Handler returns the server's handler.
//
// Every response is written through internal/writedeadline, as event
// streams are: a client that stops reading an answer (a session's
// transcript, which a plugin's results can make large) fails the write
// once it has made no progress for the streams' write timeout, which
// frees the handler and what it holds. The server has no WriteTimeout
// (event streams last), so on the old main such a client held both
// until the connection died.
func (s *Server) Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mux.ServeHTTP(writedeadline.New(w, s.writeTimeout()), r)
	})
}

// writeTimeout is how long a response may make no progress.
func (s *Server) writeTimeout() time.Duration {
	if s.streamWriteTimeout > 0 {
		return s.streamWriteTimeout
	}
	return sseWriteTimeout
}

// StopRuns makes the server refuse new sessions and runs with 503 and
// reason (the backend's Drain does the rest).
func (s *Server) StopRuns(reason string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.draining = reason
}

// Stop ends every event stream (at an event boundary); their clients
// reconnect with Last-Event-ID elsewhere or later.
func (s *Server) Stop() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.stopped {
		s.stopped = true
		close(s.stop)
	}
}

func (s *Server) drainReason() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.draining
}

func methodNotAllowed(methods []string) http.HandlerFunc {
	allow := ""
	for i, m := range methods {
		if i > 0 {
			allow += ", "
		}
		allow += m
	}
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Allow", allow)
		writeError(w, http.StatusMethodNotAllowed, "method_not_allowed", r.Method+" "+r.URL.Path+": allowed: "+allow)
	}
}

// authed finds the caller of a request, or answers 401.
func (s *Server) authed(h func(*Server, http.ResponseWriter, *http.Request, Caller)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if !s.browserCheck(w, r) {
			return
		}
		c := Caller{Owner: LocalOwner, Quota: s.o.Quota}
		if len(s.o.Tokens) > 0 {
			tok, ok := bearer(r.Header.Get("Authorization"))
			name := ""
			if ok {
				name, ok = authenticate(s.o.Tokens, tok)
			}
			if !ok {
				w.Header().Set("WWW-Authenticate", `Bearer realm="wasmagent"`)
				writeError(w, http.StatusUnauthorized, "unauthorized", "this server needs an Authorization: Bearer token it knows")
				return
			}
			c.Owner = name
		}
		r.Body = http.MaxBytesReader(w, r.Body, s.o.MaxBodyBytes)
		h(s, w, r, c)
	}
}
