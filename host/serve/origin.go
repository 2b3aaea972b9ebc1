package serve

import (
	"net"
	"net/http"
	"net/url"
	"strings"

	"github.com/wasmagent/wasmagent/internal/netaddr"
)

// IsLoopback reports whether host (a name or an address, without port)
// is this machine only: "localhost" or a loopback address.
func IsLoopback(host string) bool { return netaddr.IsLoopback(host) }

// browserCheck refuses what a web page of another site could make a
// browser send: a request whose Origin is not the server's own (the API
// sends no CORS headers, so such a page could not read the answer, but a
// POST would still act), and, without tokens, a request whose Host is not
// a loopback name (a DNS-rebinding page calls itself by its own name).
func (s *Server) browserCheck(w http.ResponseWriter, r *http.Request) bool {
	if origin := r.Header.Get("Origin"); origin != "" {
		u, err := url.Parse(origin)
		if err != nil || !strings.EqualFold(u.Host, r.Host) {
			writeError(w, http.StatusForbidden, "cross_origin", "requests from the web page at "+origin+" are refused: only this server's own pages may call it")
			return false
		}
	}
	if len(s.o.Tokens) == 0 {
		host, _, err := net.SplitHostPort(r.Host)
		if err != nil {
			host = r.Host
		}
		if !IsLoopback(host) {
			writeError(w, http.StatusForbidden, "not_loopback", "this server has no tokens and answers only requests to a loopback name (localhost, 127.0.0.1, [::1]), not "+r.Host)
			return false
		}
	}
	return true
}
