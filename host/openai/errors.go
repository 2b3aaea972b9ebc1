package openai

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"mime"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/wasmagent/wasmagent/internal/safetext"
	"github.com/wasmagent/wasmagent/internal/words"
)

// errCut is a stream that stopped before the server said why it ended.
var errCut = errors.New("the stream ended before the model finished (no finish reason came; the response was cut off)")

// minScrubbedKey is the shortest API key taken out of error texts: a
// shorter one is no secret, and taking it out would garble the text.
const minScrubbedKey = 8

// explain is the error text of a failed request: what happened, in plain
// words, then where — "(POST https://host/v1/chat/completions)". An HTTP
// status comes first ("404 Not Found: …"), as pi's own clients put it.
// chunks is how many chunks the stream had decoded. The API key never
// appears in it, even when a server echoes it.
func (m *Model) explain(err error, x *exchange, chunks int) error {
	text := what(err, x, chunks, m.opts.Timeout)
	if x.method != "" {
		text += " (" + x.method + " " + x.url
		if x.final != "" {
			text += ", redirected to " + x.final
		}
		if x.attempts > 1 {
			text += ", " + words.Count(x.attempts, "attempt")
		}
		text += ")"
	}
	return errors.New(m.scrub(text))
}

// scrub takes the API key and the configured headers' values out of
// text, the longest first (a value may hold another: "Bearer KEY").
func (m *Model) scrub(text string) string {
	type secret struct{ value, label string }
	secrets := []secret{{m.opts.APIKey, "[api key]"}}
	for _, name := range slices.Sorted(maps.Keys(m.opts.Headers)) {
		for _, v := range m.opts.Headers[name] {
			secrets = append(secrets, secret{v, "[header " + name + "]"})
		}
	}
	slices.SortStableFunc(secrets, func(a, b secret) int { return len(b.value) - len(a.value) })
	for _, s := range secrets {
		if len(s.value) >= minScrubbedKey {
			text = strings.ReplaceAll(text, s.value, s.label)
		}
	}
	return text
}

func what(err error, x *exchange, chunks int, timeout time.Duration) string {
	if errors.Is(err, context.DeadlineExceeded) {
		if x.status == 0 {
			return fmt.Sprintf("the request timed out after %v with no answer (model.timeout)", timeout)
		}
		return fmt.Sprintf("the request timed out after %v while the answer came (model.timeout)", timeout)
	}
	if x.status >= 400 {
		return statusText(x)
	}
	var big *tooLargeError
	if errors.As(err, &big) {
		return big.Error()
	}
	var flood *floodError
	if errors.As(err, &flood) {
		return fmt.Sprintf("after %s, %s", words.Count(chunks, "chunk"), flood.Error())
	}
	if errors.Is(err, bufio.ErrTooLong) {
		// openai-go reads the stream a line at a time, of at most 32 MiB
		return fmt.Sprintf("after %s, the server sent a line longer than the host reads in an event stream (32 MiB)", words.Count(chunks, "chunk"))
	}
	var ue *url.Error
	if x.status == 0 || errors.As(err, &ue) {
		return connectionText(err, x)
	}
	const streamed = "received error while streaming: " // openai-go's text for an error event
	if raw, ok := strings.CutPrefix(err.Error(), streamed); ok {
		if msg := serverMessage([]byte(raw)); msg != "" {
			return "the server failed during the stream: " + msg
		}
		return "the server failed during the stream: " + quote([]byte(raw))
	}
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	notJSON := errors.As(err, &syntax) || errors.As(err, &typ)
	cut := errors.Is(err, errCut) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)
	if chunks == 0 && (notJSON || cut) {
		return notAStream(err, x, notJSON)
	}
	switch {
	case notJSON:
		return fmt.Sprintf("after %s, the server sent an event that is not valid JSON: %v", words.Count(chunks, "chunk"), err)
	case errors.Is(err, errCut):
		return errCut.Error()
	case cut:
		return errCut.Error() + ": the connection closed mid-response"
	}
	return err.Error()
}

// statusText is an error status: "404 Not Found: " and the server's own
// message, else what the body is and how it starts.
func statusText(x *exchange) string {
	head := status(x.status)
	body := bytes.TrimSpace(x.body)
	if msg := serverMessage(body); msg != "" {
		return head + ": " + msg
	}
	switch {
	case len(body) == 0:
		return head + ": no body"
	case isJSON(x.ctype):
		return head + ": " + quote(body)
	}
	return fmt.Sprintf("%s: the body is %s, not the API's JSON error: %s", head, ctypeName(x.ctype), quote(body))
}

// notAStream is a successful status whose body gave no chunk.
func notAStream(err error, x *exchange, notJSON bool) string {
	head := status(x.status)
	body := bytes.TrimSpace(x.body)
	switch {
	case x.read == 0:
		return fmt.Sprintf("the server answered %s with an empty body, not an event stream", head)
	case mediaType(x.ctype) == "text/event-stream":
		if notJSON {
			return fmt.Sprintf("the server's first event is not valid JSON (%v): %s", err, quote(body))
		}
		return fmt.Sprintf("the event stream ended before any chunk came: %s", quote(body))
	case isJSON(x.ctype) || (len(body) > 0 && body[0] == '{'):
		if bytes.Contains(body, []byte(`"choices"`)) {
			return fmt.Sprintf(`the server answered %s with one whole completion (%s), not an event stream: it ignored "stream": true`, head, ctypeName(x.ctype))
		}
		if msg := serverMessage(body); msg != "" {
			return fmt.Sprintf("the server answered %s with an error instead of an event stream: %s", head, msg)
		}
	}
	return fmt.Sprintf("the server answered %s with %s, not an event stream: %s", head, ctypeName(x.ctype), quote(body))
}

// connectionText is a request that got no response.
func connectionText(err error, x *exchange) string {
	inner := err
	var ue *url.Error
	if errors.As(err, &ue) {
		inner = ue.Err
	}
	var dns *net.DNSError
	var cert *tls.CertificateVerificationError
	var unknown x509.UnknownAuthorityError
	var hostname x509.HostnameError
	var record tls.RecordHeaderError
	msg := inner.Error()
	switch {
	case errors.As(err, &dns):
		why := dns.Err
		if dns.IsNotFound {
			why = "no such host"
		}
		return fmt.Sprintf("cannot resolve the host name %q: %s", safetext.Clean(dns.Name), why)
	case errors.Is(err, syscall.ECONNREFUSED):
		return fmt.Sprintf("connection refused: nothing listens at %s", x.host)
	case strings.Contains(msg, "server gave HTTP response to HTTPS client"), errors.As(err, &record):
		return fmt.Sprintf("the TLS handshake with %s failed: it answers plain HTTP, not HTTPS (use http:// in base_url)", x.host)
	case errors.As(err, &cert), errors.As(err, &unknown), errors.As(err, &hostname):
		return fmt.Sprintf("the TLS certificate of %s is not trusted: %s", x.host, safetext.Clean(msg))
	case strings.Contains(msg, "origin must match"):
		to := ""
		if ue != nil {
			if u, perr := url.Parse(ue.URL); perr == nil {
				to = " " + redactURL(u)
			}
		}
		return fmt.Sprintf("the server redirected to%s, another origin (scheme, host or port), where the API key is not sent: give that URL's API root as base_url", to)
	case strings.Contains(msg, "stopped after"):
		return "the server redirected too many times (a redirect loop): " + safetext.Clean(msg)
	case errors.Is(err, syscall.ECONNRESET):
		// "connection reset" stays: it is a passing failure to pi's retry.
		return fmt.Sprintf("%s closed the connection before answering (connection reset)", x.host)
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, syscall.EPIPE), errors.Is(err, net.ErrClosed):
		return fmt.Sprintf("%s closed the connection before answering", x.host)
	}
	return "the request failed: " + safetext.Clip(safetext.Clean(msg), 300)
}

// serverMessage is the message of an error body in the shapes servers
// send: OpenAI's {"error":{"message":…}}, Ollama's {"error":"…"},
// FastAPI's {"detail":…}, {"message":…}, or a list of one of these; ""
// when body is none of them. It is printable and at most 500 runes.
func serverMessage(body []byte) string {
	var v any
	if json.Unmarshal(body, &v) != nil {
		return ""
	}
	msg := messageIn(v, 0)
	return safetext.Clip(strings.TrimSpace(safetext.Clean(msg)), 500)
}

func messageIn(v any, depth int) string {
	if depth > 4 {
		return ""
	}
	switch v := v.(type) {
	case string:
		if depth > 0 {
			return v
		}
	case []any:
		if len(v) > 0 {
			return messageIn(v[0], depth+1)
		}
	case map[string]any:
		for _, k := range []string{"error", "message", "detail", "msg", "error_description"} {
			if s := messageIn(v[k], depth+1); strings.TrimSpace(s) != "" {
				return s
			}
		}
	}
	return ""
}

func status(code int) string {
	if t := http.StatusText(code); t != "" {
		return fmt.Sprintf("%d %s", code, t)
	}
	return fmt.Sprint(code)
}

func mediaType(ctype string) string {
	mt, _, err := mime.ParseMediaType(ctype)
	if err != nil {
		return strings.ToLower(strings.TrimSpace(ctype))
	}
	return mt
}

func isJSON(ctype string) bool {
	mt := mediaType(ctype)
	return mt == "application/json" || strings.HasSuffix(mt, "+json")
}

func ctypeName(ctype string) string {
	if ctype == "" {
		return "no Content-Type"
	}
	return safetext.Clip(safetext.Clean(mediaType(ctype)), 80)
}

// quote is the start of a body, printable, its blanks collapsed and
// bounded, in quotes.
func quote(body []byte) string {
	s := string(body)
	if len(s) > 1024 {
		s = s[:1024]
	}
	return fmt.Sprintf("%q", safetext.Clip(strings.Join(strings.Fields(safetext.Clean(s)), " "), 200))
}
