package openai

import (
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/openai/openai-go/v3/option"
)

// exchange records what one Stream call sent and got back, for its error
// text: the method and URL of the last attempt (secrets taken out), the
// status and Content-Type of its response, where a redirect led, and the
// start of the body (all of it, up to maxErrorBody, for an error status).
type exchange struct {
	method, url string // url redacted (redactURL)
	host        string // the host and port asked
	attempts    int
	final       string // the URL answered, when a redirect led elsewhere
	status      int    // 0: no response
	ctype       string
	body        []byte // the start of the body, as read
	read        int64  // the body's bytes read
}

const (
	// maxHead is how much of a successful body is kept to explain a
	// stream that is not one.
	maxHead = 4 << 10
	// maxErrorBody bounds the body of an error status: it is read whole
	// (for the server's message), and no server's message is longer.
	maxErrorBody = 64 << 10
)

// middleware records each attempt; the last one is what Stream reports.
func (x *exchange) middleware(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
	*x = exchange{method: req.Method, url: redactURL(req.URL), host: req.URL.Host, attempts: x.attempts + 1}
	res, err := next(req)
	if res == nil {
		return res, err
	}
	x.status = res.StatusCode
	x.ctype = res.Header.Get("Content-Type")
	if res.Request != nil && res.Request.URL != nil && res.Request.URL.String() != req.URL.String() {
		x.final = res.Request.Method + " " + redactURL(res.Request.URL)
	}
	if res.Body != nil {
		keep := maxHead
		if res.StatusCode >= 400 {
			keep = maxErrorBody
		}
		res.Body = &recorder{ReadCloser: res.Body, x: x, keep: keep, cut: res.StatusCode >= 400}
	}
	return res, err
}

// recorder keeps the first keep bytes read; with cut, it ends the body
// there (an error body is read whole by openai-go).
type recorder struct {
	io.ReadCloser
	x    *exchange
	keep int
	cut  bool
}

func (r *recorder) Read(p []byte) (int, error) {
	room := r.keep - len(r.x.body)
	if r.cut && room <= 0 {
		return 0, io.EOF
	}
	if r.cut && len(p) > room {
		p = p[:room]
	}
	n, err := r.ReadCloser.Read(p)
	r.x.read += int64(n)
	if room > 0 {
		r.x.body = append(r.x.body, p[:min(n, room)]...)
	}
	return n, err
}

// redactURL is u as an error may show it: no user or password, and no
// query value but api-version's (a key in a query string is a secret too).
func redactURL(u *url.URL) string {
	if u == nil {
		return ""
	}
	c := *u
	if c.User != nil {
		c.User = url.User("REDACTED")
	}
	if c.RawQuery != "" {
		q := c.Query()
		for k, vs := range q {
			if strings.EqualFold(k, "api-version") {
				continue
			}
			for i := range vs {
				vs[i] = "REDACTED"
			}
		}
		c.RawQuery = q.Encode()
	}
	c.Fragment, c.RawFragment = "", ""
	return c.String()
}
