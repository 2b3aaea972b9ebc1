package runtime

import (
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// hostPattern is one entry of Grants.Hosts.
type hostPattern struct {
	any      bool   // "*": every host name
	wildcard bool   // "*.name": the subdomains of name
	name     string // lower case; an IPv6 literal without brackets
	port     string // "" means 80 for http and 443 for https
}

func parseHostPattern(s string) (hostPattern, error) {
	var p hostPattern
	h := strings.ToLower(strings.TrimSpace(s))
	if h == "" {
		return p, errors.New("empty host grant")
	}
	if strings.Contains(h, "/") {
		return p, fmt.Errorf("host grant %q: give a host name, not a URL", s)
	}
	name, port := h, ""
	switch {
	case strings.HasPrefix(h, "["):
		end := strings.Index(h, "]")
		if end < 0 || (end+1 < len(h) && h[end+1] != ':') {
			return p, fmt.Errorf("host grant %q: bad IPv6 literal", s)
		}
		name = h[1:end]
		if end+1 < len(h) {
			port = h[end+2:]
		}
	case strings.Count(h, ":") == 1:
		name, port, _ = strings.Cut(h, ":")
	}
	if port != "" {
		n, err := strconv.Atoi(port)
		if err != nil || n < 1 || n > 65535 {
			return p, fmt.Errorf("host grant %q: bad port %q", s, port)
		}
	}
	p.port = port
	switch {
	case name == "*":
		p.any = true
		return p, nil
	case strings.HasPrefix(name, "*."):
		p.wildcard = true
		name = name[2:]
	}
	if net.ParseIP(name) == nil {
		if name == "" || strings.Contains(name, "*") || strings.Trim(name, "abcdefghijklmnopqrstuvwxyz0123456789.-") != "" {
			return p, fmt.Errorf("host grant %q: %q is not a host name (a name, *.name or *, each with an optional :port)", s, name)
		}
	} else if p.wildcard {
		return p, fmt.Errorf("host grant %q: a wildcard needs a domain name", s)
	}
	p.name = name
	return p, nil
}

func (p hostPattern) String() string {
	n := p.name
	switch {
	case p.any:
		n = "*"
	case p.wildcard:
		n = "*." + n
	case strings.Contains(n, ":"):
		n = "[" + n + "]"
	}
	if p.port != "" {
		n += ":" + p.port
	}
	return n
}

// allows reports whether u's scheme, host and port are granted by p.
func (p hostPattern) allows(u *url.URL) bool {
	host := strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
	}
	if !p.admitsPort(port) {
		return false
	}
	switch {
	case p.any:
		return true
	case p.wildcard:
		return strings.HasSuffix(host, "."+p.name)
	default:
		return host == p.name
	}
}

// admitsPort reports whether p grants port: its own, or 80 and 443 when
// it names none.
func (p hostPattern) admitsPort(port string) bool {
	if p.port == "" {
		return port == "80" || port == "443"
	}
	return port == p.port
}

// CheckHostGrant reports what is wrong with a host grant as written in
// Grants.Hosts, or nil.
func CheckHostGrant(s string) error {
	_, err := parseHostPattern(s)
	return err
}

// HostGranted reports whether the host grants (as in Grants.Hosts) allow
// HTTPS to host, a name with an optional ":port" (default 443). It is how
// a host compares a plugin's declared needs with its grants.
func HostGranted(grants []string, host string) bool {
	u := &url.URL{Scheme: "https", Host: host}
	// A need written as a pattern ("*.example.com") is met by the same
	// pattern.
	need, needErr := parseHostPattern(host)
	for _, g := range grants {
		p, err := parseHostPattern(g)
		if err != nil {
			continue
		}
		if p.allows(u) || (needErr == nil && need == p) {
			return true
		}
	}
	return false
}

// checkURL says why u may not be fetched, or returns nil.
func (pl *Plugin) checkURL(u *url.URL) error {
	if u.Scheme != "http" && u.Scheme != "https" {
		return fmt.Errorf("HTTP request to %s is not allowed: only http and https URLs are", u.Redacted())
	}
	for _, p := range pl.hosts {
		if p.allows(u) {
			return nil
		}
	}
	granted := "none"
	if len(pl.grants.Hosts) > 0 {
		granted = strings.Join(pl.grants.Hosts, ", ")
	}
	return fmt.Errorf("HTTP request to %s is not allowed: the plugin's granted hosts are %s", u.Redacted(), granted)
}

// MaxHTTPRequestBytes bounds the JSON that describes one http_request
// (its URL, method and headers; the body is a block of its own, bounded
// by Grants.MaxOutputBytes): 1 MiB, what Go's HTTP server reads of a
// request's headers (http.DefaultMaxHeaderBytes). It is checked before
// the JSON is decoded, and before the URL is judged: decoded, a map of
// headers costs the host about 12 times its size, in one host step that
// nothing interrupts (RATIONALE.md, "Why are an HTTP request's and
// response's headers capped?").
const MaxHTTPRequestBytes = 1 << 20

// MaxHTTPResponseHeaderBytes bounds the headers of one HTTP response
// (redirects and informational responses each have their own): 256 KiB,
// what Chromium accepts. Go's default is 10 MiB, and the headers are not
// part of the body that Grants.MaxHTTPResponseBytes bounds.
const MaxHTTPResponseHeaderBytes = 256 << 10

// newHTTPClient is a plugin's client: no proxy from the host's
// environment, every redirect checked against the grants, every address
// connected to checked (dialGuard), and credentials added by the host.
func (pl *Plugin) newHTTPClient() *http.Client {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.Proxy = nil
	tr.MaxResponseHeaderBytes = MaxHTTPResponseHeaderBytes
	d := &net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second, Control: pl.dialGuard}
	tr.DialContext = d.DialContext
	return &http.Client{
		Transport: &credentialTransport{pl: pl, next: tr},
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) >= 10 {
				return errors.New("stopped after 10 redirects")
			}
			return pl.checkURL(req.URL)
		},
	}
}

// httpRequest is Extism's http_request: a JSON request {"url", "method",
// "headers"} and an optional body block; it returns the response body block.
func (st *callState) httpRequest(reqOff, bodyOff uint64) uint64 {
	st.httpStatus, st.httpHeaders = 0, nil
	st.observed.Network = true
	if st.httpRequests++; st.httpRequests > st.p.grants.MaxHTTPRequests {
		st.check(capFault("MaxHTTPRequests", st.p.grants.MaxHTTPRequests, "http_request: %d requests in one call", st.httpRequests))
	}
	raw, f := st.block(reqOff, "http_request")
	st.check(f)
	if len(raw) > MaxHTTPRequestBytes {
		st.check(faultf("http_request: a request of %d bytes (URL, method and headers), over the host's limit of %d (runtime.MaxHTTPRequestBytes)", len(raw), MaxHTTPRequestBytes))
	}
	var req struct {
		URL     string            `json:"url"`
		Method  string            `json:"method"`
		Headers map[string]string `json:"headers"`
	}
	if err := json.Unmarshal(raw, &req); err != nil {
		st.check(faultf("http_request: the request is not valid JSON: %v", err))
	}
	st.free(reqOff)
	// The body is read where the plugin left it, in its host memory
	// (counted against its grant), not copied: the block is freed once
	// the response is read, and the transport may read no more of it
	// after that (src.close).
	var src *guestBody
	if bodyOff != 0 {
		b, f := st.block(bodyOff, "http_request body")
		st.check(f)
		if len(b) > st.p.grants.MaxOutputBytes {
			st.check(capFault("MaxOutputBytes", st.p.grants.MaxOutputBytes, "http_request: a request body of %d bytes", len(b)))
		}
		src = &guestBody{b: b}
		defer src.close()
	}
	u, err := url.Parse(req.URL)
	if err != nil {
		st.check(faultf("http_request: bad URL %q: %v", req.URL, err))
	}
	if err := st.p.checkURL(u); err != nil {
		st.check(&fault{because(truncate(err.Error(), MaxMessageBytes), ErrTrap)})
	}
	method := strings.ToUpper(req.Method)
	if method == "" {
		method = http.MethodGet
	}
	hreq, err := http.NewRequestWithContext(st.ctx, method, u.String(), nil)
	if err != nil {
		st.check(faultf("http_request: %v", err))
	}
	if src != nil && len(src.b) > 0 {
		hreq.Body, _ = src.reader()
		hreq.GetBody = src.reader
		hreq.ContentLength = int64(len(src.b))
	}
	for k, v := range req.Headers {
		hreq.Header.Set(k, v)
	}
	start := time.Now()
	resp, err := st.p.client.Do(hreq)
	if err != nil {
		st.check(faultf("http_request %s %s failed after %v: %v", method, u.Redacted(), time.Since(start).Round(time.Millisecond), err))
	}
	defer resp.Body.Close()
	data := st.readResponse(resp, method+" "+u.Redacted())
	defer st.releaseResponse(data)
	st.httpStatus = int32(resp.StatusCode)
	headers := make(map[string]string, len(resp.Header))
	for k, v := range resp.Header {
		headers[strings.ToLower(k)] = strings.Join(v, ",")
	}
	// Not a header (no header name starts with ":"): the URL the response
	// came from, after redirects.
	headers[":url"] = resp.Request.URL.Redacted()
	st.httpHeaders, _ = json.Marshal(headers)
	if src != nil {
		src.close()
		st.free(bodyOff)
	}
	if data.n == 0 {
		return 0
	}
	st.releaseResponse(data)
	off, f := st.alloc(uint64(data.n))
	st.check(f)
	at := off
	for i, c := range data.chunks {
		at += uint64(copy(st.mem[at:], c))
		data.chunks[i] = nil
	}
	st.wrote(at)
	return off
}

// dialGuard refuses to connect to a loopback, private, link-local,
// multicast or unspecified address unless the grants name that address
// itself (or "localhost" for loopback), with the port connected to: a
// granted host name whose DNS answer points inside the host's network
// (DNS rebinding) is refused, and so is one that points at a granted
// internal address on a port the grant does not name ("127.0.0.1:11434"
// granted beside "*" opened 127.0.0.1's ports 80 and 443 on the old main).
func (pl *Plugin) dialGuard(network, address string, _ syscall.RawConn) error {
	host, port, err := net.SplitHostPort(address)
	if err != nil {
		return err
	}
	ip := net.ParseIP(host)
	if ip == nil || publicIP(ip) {
		return nil
	}
	for _, p := range pl.hosts {
		if !p.admitsPort(port) {
			continue
		}
		if g := net.ParseIP(p.name); g != nil && g.Equal(ip) {
			return nil
		}
		if p.name == "localhost" && ip.IsLoopback() {
			return nil
		}
	}
	return fmt.Errorf("refused to connect to %s: a loopback, private or link-local address; grant the address itself, with this port, to allow it", net.JoinHostPort(ip.String(), port))
}

// notPublic are the ranges, beyond those net.IP classifies, that reach
// no host on the public Internet or reach the host's own network.
var notPublic = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),      // "this network": 0.x.y.z may reach the host itself
	netip.MustParsePrefix("100.64.0.0/10"),  // carrier-grade NAT
	netip.MustParsePrefix("192.0.0.0/24"),   // IETF protocol assignments
	netip.MustParsePrefix("198.18.0.0/15"),  // benchmarking
	netip.MustParsePrefix("240.0.0.0/4"),    // reserved, and the broadcast address
	netip.MustParsePrefix("64:ff9b:1::/48"), // local-use NAT64: may translate to any IPv4 address
	netip.MustParsePrefix("2001::/32"),      // Teredo: an IPv4 address inside, obfuscated
	netip.MustParsePrefix("fec0::/10"),      // site-local (deprecated, still routed by some)
	netip.MustParsePrefix("100::/64"),       // discard-only
	netip.MustParsePrefix("::/96"),          // IPv4-compatible (deprecated), the unspecified and loopback addresses
}

// publicIP reports whether ip is an address on the public Internet. An
// IPv6 address that carries an IPv4 one (IPv4-mapped, NAT64's well-known
// prefix, 6to4) is public only if the IPv4 address is.
func publicIP(ip net.IP) bool {
	a, ok := netip.AddrFromSlice(ip)
	if !ok {
		return false
	}
	a = a.Unmap()
	if a.Is6() {
		b := a.As16()
		switch {
		case netip.MustParsePrefix("64:ff9b::/96").Contains(a):
			return publicIP(net.IP(b[12:16]))
		case netip.MustParsePrefix("2002::/16").Contains(a):
			return publicIP(net.IP(b[2:6]))
		}
	}
	for _, p := range notPublic {
		if p.Contains(a) {
			return false
		}
	}
	ip = net.IP(a.AsSlice())
	return !(ip.IsLoopback() || ip.IsPrivate() || ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast() ||
		ip.IsInterfaceLocalMulticast() || ip.IsMulticast() || ip.IsUnspecified())
}

// Credential is a header the host adds to a plugin's requests to one
// host: the plugin never holds the secret, and cannot send it anywhere
// else.
type Credential struct {
	// Host is a host pattern as in Grants.Hosts ("api.github.com").
	Host string
	// Header and Value are the header the host sets ("Authorization",
	// "Bearer …").
	Header string
	Value  string
}

// credentialTransport sets each credential on the requests (redirects
// included) whose URL its host pattern allows, if they are private, and
// removes that header from every other request.
type credentialTransport struct {
	pl   *Plugin
	next http.RoundTripper
}

func (t *credentialTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if len(t.pl.creds) == 0 {
		return t.next.RoundTrip(req)
	}
	req = req.Clone(req.Context())
	for _, c := range t.pl.creds {
		req.Header.Del(c.Header)
	}
	for _, c := range t.pl.creds {
		if c.pattern.allows(req.URL) && private(req.URL) {
			req.Header.Set(c.Header, c.Value)
		}
	}
	return t.next.RoundTrip(req)
}

// private reports whether a request to u is one nobody on the way can
// read: https, or http to a loopback address named as such (the only way
// a plugin reaches one, dialGuard). A credential granted for a host goes
// only there: over plain http, a plugin could otherwise have the host
// send the secret in the clear ("http://api.github.com/", or a redirect
// to it), for anyone on the network path to read.
func private(u *url.URL) bool {
	if u.Scheme == "https" {
		return true
	}
	host := strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
	ip := net.ParseIP(host)
	return host == "localhost" || ip != nil && ip.IsLoopback()
}

type credential struct {
	Credential
	pattern hostPattern
}
