package cli

import (
	"context"
	"encoding/json"
	"io"
	"strings"

	"github.com/wasmagent/wasmagent/host"
	"github.com/wasmagent/wasmagent/host/eventwire"
)

type renderer interface {
	event(ctx context.Context, e host.Event) error
}

// jsonRenderer prints every event as one JSON object a line (pi's event
// names and fields), within the byte budget of [events] (host/eventwire).
type jsonRenderer struct {
	out io.Writer
	enc *eventwire.Encoder
}

func (r *jsonRenderer) event(ctx context.Context, e host.Event) error { return r.enc.Event(ctx, e) }

func compactJSON(raw json.RawMessage) string {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return string(raw)
	}
	b, _ := marshalJSON(v, "")
	return string(b)
}

// partialText is the text of a partial result, whatever its Go type.
func partialText(p any) string {
	b, err := json.Marshal(p)
	if err != nil {
		return ""
	}
	var r struct {
		Content host.Contents `json:"content"`
	}
	if json.Unmarshal(b, &r) == nil && len(r.Content) > 0 {
		return r.Content.TextOf()
	}
	return string(b)
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " …"
	}
	return s
}

// lastWords is the end of s on one line, at most n runes.
func lastWords(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return "…" + string(r[len(r)-n+1:])
}

// clip cuts s to n runes.
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
