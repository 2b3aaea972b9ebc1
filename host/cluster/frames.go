package cluster

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/wasmagent/wasmagent/host"
	"github.com/wasmagent/wasmagent/host/session"
)

// The headers of a session's messages. A message's body is lines of the
// session's JSONL file: the first message holds the header line (and the
// entries it was created with), each later one the entries of one append.
const (
	hdrKind   = "Wa-Kind"   // kindLog or kindFence
	hdrPart   = "Wa-Part"   // "i/n" when one append took n messages
	hdrInfo   = "Wa-Info"   // the session's summary (JSON) once this message is in
	hdrHolder = "Wa-Holder" // the lease holder that wrote it
	hdrMsgID  = "Nats-Msg-Id"

	kindLog   = "log"   // lines of the session file
	kindFence = "fence" // a host took the session over; no lines

	maxParts = 1 << 16 // an append is at most this many messages
)

// frame is one stored message of a session, as the decoder sees it.
type frame struct {
	kind string
	part string // "" or "i/n"
	data []byte
}

// assemble returns the session file that frames hold, in order, and what
// it dropped. An append split over several messages counts only whole:
// one cut short (its writer died, or lost the session, between its
// messages) is dropped like the torn last line of a file, so a session
// never holds part of an append. Lines that do not end in a newline are
// dropped too: a later append must never continue them.
func assemble(frames []frame) ([]byte, []string) {
	var out, group bytes.Buffer
	var warnings []string
	next, total, start := 0, 0, 0 // the awaited part of the open group
	dropGroup := func(why string) {
		if total > 0 {
			warnings = append(warnings, fmt.Sprintf("message %d: an append of %d messages %s after %d of them; dropped", start+1, total, why, next-1))
		}
		group.Reset()
		next, total = 0, 0
	}
	keep := func(i int, data []byte) {
		if len(data) > 0 && data[len(data)-1] != '\n' {
			warnings = append(warnings, fmt.Sprintf("message %d: %d bytes that do not end a line; dropped", i+1, len(data)))
			return
		}
		out.Write(data)
	}
	for i, f := range frames {
		switch f.kind {
		case kindFence:
			dropGroup("was cut short by a takeover")
			continue
		case kindLog:
		default:
			warnings = append(warnings, fmt.Sprintf("message %d: unknown kind %q; skipped", i+1, f.kind))
			continue
		}
		if f.part == "" {
			dropGroup("was cut short")
			keep(i, f.data)
			continue
		}
		k, n, ok := parsePart(f.part)
		switch {
		case !ok:
			dropGroup("was cut short")
			warnings = append(warnings, fmt.Sprintf("message %d: bad part %q; dropped", i+1, f.part))
			continue
		case k == 1:
			dropGroup("was cut short")
			next, total, start = 1, n, i
		case total == 0 || k != next || n != total:
			dropGroup("was cut short")
			warnings = append(warnings, fmt.Sprintf("message %d: part %d of %d without the parts before it; dropped", i+1, k, n))
			continue
		}
		group.Write(f.data)
		next++
		if next > total {
			keep(start, group.Bytes())
			group.Reset()
			next, total = 0, 0
		}
	}
	dropGroup("was cut short (its writer stopped)")
	return out.Bytes(), warnings
}

func parsePart(s string) (k, n int, ok bool) {
	a, b, found := strings.Cut(s, "/")
	if !found {
		return 0, 0, false
	}
	k, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	if err1 != nil || err2 != nil || k < 1 || n < 2 || k > n || n > maxParts {
		return 0, 0, false
	}
	return k, n, true
}

// summary is what List shows of a session, carried by every message in
// hdrInfo so that listing reads one message per session.
type summary struct {
	ID       string `json:"id"`
	Cwd      string `json:"cwd,omitempty"`
	Created  string `json:"created,omitempty"`
	Modified int64  `json:"modified,omitempty"` // Unix ms of the last append
	Name     string `json:"name,omitempty"`
	Messages int    `json:"messages"`
	First    string `json:"first,omitempty"`
}

// maxSummaryText bounds Name and First in a summary (a header).
const maxSummaryText = 256

func newSummary(h session.Header) summary {
	return summary{ID: h.ID, Cwd: h.Cwd, Created: h.Timestamp}
}

func summaryOf(t *session.Transcript) summary {
	s := newSummary(t.Header)
	s.add(t.Entries, time.Time{})
	return s
}

// add counts entries in, as appended at now (zero: keep Modified).
func (s *summary) add(entries []session.Entry, now time.Time) {
	for _, e := range entries {
		switch e.Type {
		case session.TypeMessage:
			s.Messages++
			if u, ok := e.Message.(*host.UserMessage); ok && s.First == "" {
				s.First = clip(u.Content.TextOf())
			}
		case session.TypeSessionInfo:
			s.Name = clip(strings.TrimSpace(e.Name))
		}
	}
	if !now.IsZero() {
		s.Modified = now.UnixMilli()
	}
}

func (s summary) header() string {
	b, _ := json.Marshal(s)
	return string(b)
}

// clip cuts s to maxSummaryText bytes on a rune boundary.
func clip(s string) string {
	if len(s) <= maxSummaryText {
		return s
	}
	s = s[:maxSummaryText]
	for len(s) > 0 && !utf8.ValidString(s) {
		s = s[:len(s)-1]
	}
	return s
}

// infoOf reads a message's summary; modified is the message's time,
// used when the summary has none.
func infoOf(key, value string, modified time.Time) session.Info {
	info := session.Info{Key: key, ID: key, Modified: modified}
	var s summary
	if json.Unmarshal([]byte(value), &s) != nil {
		return info
	}
	if s.ID != "" {
		info.ID = s.ID
	}
	info.Cwd, info.Name, info.Messages, info.First = s.Cwd, s.Name, s.Messages, s.First
	info.Created, _ = time.Parse(time.RFC3339Nano, s.Created)
	if s.Modified > 0 {
		info.Modified = time.UnixMilli(s.Modified)
	}
	return info
}

// split cuts data into pieces of at most size bytes.
func split(data []byte, size int) [][]byte {
	if len(data) <= size {
		return [][]byte{data}
	}
	var parts [][]byte
	for len(data) > size {
		parts = append(parts, data[:size])
		data = data[size:]
	}
	if len(data) > 0 {
		parts = append(parts, data)
	}
	return parts
}
