package session

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/wasmagent/wasmagent/host"
	"github.com/wasmagent/wasmagent/host/internal/jsonread"
)

// Version is the session file format written: pi-coding-agent's version 3.
const Version = 3

// Entry types of pi's session format.
const (
	TypeSession       = "session"
	TypeMessage       = "message"
	TypeSessionInfo   = "session_info"
	TypeThinkingLevel = "thinking_level_change"
	TypeModelChange   = "model_change"
	TypeCompaction    = "compaction"
	TypeBranchSummary = "branch_summary"
	TypeCustomMessage = "custom_message"
)

// Header is the first line of a session: metadata, not part of the tree.
type Header struct {
	Type          string `json:"type"` // always "session"
	Version       int    `json:"version"`
	ID            string `json:"id"`
	Timestamp     string `json:"timestamp"`
	Cwd           string `json:"cwd"`
	ParentSession string `json:"parentSession,omitempty"`

	// given is the line the header was read from: pi writes back the
	// object it parsed, its members in their order and its own kept,
	// with the version it migrated to.
	given json.RawMessage
}

// MarshalJSON implements json.Marshaler: a header read from a file as
// given, with the members it has (and the version) set to the header's
// values now; any other in pi's order.
func (h Header) MarshalJSON() ([]byte, error) {
	type plain Header
	b, err := json.Marshal(plain(h))
	if err != nil || h.given == nil {
		return b, err
	}
	var now, given map[string]json.RawMessage
	if json.Unmarshal(b, &now) != nil || json.Unmarshal(h.given, &given) != nil {
		return b, nil
	}
	var set []host.Member
	for _, k := range []string{"type", "version", "id", "timestamp", "cwd", "parentSession"} {
		_, had := given[k]
		if v, ok := now[k]; ok && (had || k == "version" || k == "parentSession") {
			set = append(set, host.Member{Name: k, Value: v})
		}
	}
	return host.EditObject(h.given, set)
}

// Entry is one line after the header: a node of the session tree. Message
// is set for "message" entries, Name for "session_info", ThinkingLevel for
// "thinking_level_change". Entries of the other types pi writes
// (compaction, label, custom…) keep the line they were read from in Raw
// and are written back unchanged.
type Entry struct {
	Type          string
	ID            string
	ParentID      string // "" for the root (null in JSON)
	Timestamp     string
	Message       host.Message
	Name          string
	ThinkingLevel string
	Raw           json.RawMessage

	// extra holds the members of a message, session_info or
	// thinking_level_change line beyond the ones its type writes, as pi
	// keeps them when it rewrites a file (an upgrade).
	extra map[string]json.RawMessage
	// given is such a line as read, when it has members of its own
	// (extra) or its members in another order than this package writes
	// them: it is written back in its order, as pi writes back the
	// object it parsed, with the entry's fields now.
	given json.RawMessage
}

// entryJSON is the wire form of the entries this package writes. A
// member the entry keeps in extra (one given of another type, or absent)
// is left out here and written from there.
type entryJSON struct {
	Type          string          `json:"type"`
	ID            *string         `json:"id,omitempty"`
	ParentID      json.RawMessage `json:"parentId,omitempty"`
	Timestamp     *string         `json:"timestamp,omitempty"`
	Message       json.RawMessage `json:"message,omitempty"`
	Name          *string         `json:"name,omitempty"`
	ThinkingLevel *string         `json:"thinkingLevel,omitempty"`
}

// MarshalJSON implements json.Marshaler: one line of pi's format.
func (e Entry) MarshalJSON() ([]byte, error) {
	if len(e.Raw) > 0 {
		return e.Raw, nil
	}
	w := entryJSON{Type: e.Type}
	own := func(name string) bool { _, kept := e.extra[name]; return !kept }
	if own("id") {
		w.ID = &e.ID
	}
	if own("parentId") {
		w.ParentID = json.RawMessage("null")
		if e.ParentID != "" {
			w.ParentID, _ = json.Marshal(e.ParentID)
		}
	}
	if own("timestamp") {
		w.Timestamp = &e.Timestamp
	}
	if (e.ThinkingLevel != "" || e.Type == TypeThinkingLevel) && own("thinkingLevel") {
		w.ThinkingLevel = &e.ThinkingLevel
	}
	switch e.Type {
	case TypeMessage:
		if e.Message == nil {
			return nil, fmt.Errorf("entry %s: message entry without a message", e.ID)
		}
		m, err := json.Marshal(e.Message)
		if err != nil {
			return nil, fmt.Errorf("entry %s: %w", e.ID, err)
		}
		w.Message = m
	case TypeSessionInfo:
		if own("name") {
			w.Name = &e.Name
		}
	}
	if e.given != nil {
		return e.givenEdited(w)
	}
	b, err := json.Marshal(w)
	if err != nil || len(e.extra) == 0 {
		return b, err
	}
	keys := slices.Sorted(maps.Keys(e.extra))
	b = b[:len(b)-1]
	for _, k := range keys {
		if e.extra[k] == nil {
			continue // given absent
		}
		name, _ := json.Marshal(k)
		b = append(append(append(append(b, ','), name...), ':'), e.extra[k]...)
	}
	return append(b, '}'), nil
}

// givenEdited is the line the entry was read from, with the members
// the entry writes (w) set to their values now: where the line had
// them, else after its other members.
func (e Entry) givenEdited(w entryJSON) ([]byte, error) {
	var set []host.Member
	str := func(name string, p *string) {
		if p != nil {
			v, _ := json.Marshal(*p)
			set = append(set, host.Member{Name: name, Value: v})
		}
	}
	t, _ := json.Marshal(w.Type)
	set = append(set, host.Member{Name: "type", Value: t})
	str("id", w.ID)
	if w.ParentID != nil {
		set = append(set, host.Member{Name: "parentId", Value: w.ParentID})
	}
	str("timestamp", w.Timestamp)
	if w.Message != nil {
		set = append(set, host.Member{Name: "message", Value: w.Message})
	}
	str("name", w.Name)
	str("thinkingLevel", w.ThinkingLevel)
	return host.EditObject(e.given, set)
}

// entryFields are the members each type of entry writes (entryJSON).
var entryFields = map[string][]string{
	TypeMessage:       {"type", "id", "parentId", "timestamp", "message"},
	TypeSessionInfo:   {"type", "id", "parentId", "timestamp", "name"},
	TypeThinkingLevel: {"type", "id", "parentId", "timestamp", "thinkingLevel"},
}

// extraMembers returns the members of line that an entry of its type does
// not write, or nil.
func extraMembers(typ string, line []byte) map[string]json.RawMessage {
	if !otherNames(line, entryFields[typ]) {
		return nil // the usual line: no second decoding
	}
	var all map[string]json.RawMessage
	if json.Unmarshal(line, &all) != nil {
		return nil
	}
	for _, k := range entryFields[typ] {
		delete(all, k)
	}
	if len(all) == 0 {
		return nil
	}
	return all
}

// oddMembers adds to extra the members of line among the type's own
// (entryFields, but for the message) that its string fields cannot hold:
// one of another type is kept as given, one absent as nil (written
// nowhere); a null parentId is a root's, and no odd one.
func oddMembers(typ string, line []byte, extra map[string]json.RawMessage) map[string]json.RawMessage {
	var all map[string]json.RawMessage
	if json.Unmarshal(line, &all) != nil {
		return extra
	}
	for _, k := range entryFields[typ][1:] {
		if k == "message" {
			continue
		}
		v, given := all[k]
		var s string
		if given && (json.Unmarshal(v, &s) == nil && string(v) != "null" || k == "parentId" && string(v) == "null") {
			continue
		}
		if extra == nil {
			extra = map[string]json.RawMessage{}
		}
		if given {
			var c bytes.Buffer
			json.Compact(&c, v)
			extra[k] = c.Bytes()
		} else {
			extra[k] = nil
		}
	}
	return extra
}

// decodeEntry decodes one line after the header. Every JSON value but
// null is an entry, as pi keeps every line JSON.parse reads: a member of
// another type than pi writes, or absent, is kept as given (a timestamp
// that is a number, an entry without a type), and a value that is no
// object is an entry of no type and no id (isValue). Only a line that is
// not JSON or null, a second header and a message entry without a
// message (on which pi's own reading fails) are errors.
func decodeEntry(line []byte) (Entry, error) {
	if e, ok := decodeEntryFast(line); ok {
		return e, nil
	}
	return decodeEntryJSON(line)
}

// decodeEntryJSON is decodeEntry by encoding/json, for any line.
func decodeEntryJSON(line []byte) (Entry, error) {
	var w struct {
		Type          *string         `json:"type"`
		ID            *string         `json:"id"`
		ParentID      *string         `json:"parentId"`
		Timestamp     *string         `json:"timestamp"`
		Message       json.RawMessage `json:"message"`
		Name          *string         `json:"name"`
		ThinkingLevel *string         `json:"thinkingLevel"`
	}
	if t := bytes.TrimLeft(line, " \t\r\n"); len(t) == 0 || t[0] != '{' {
		// JSON that is no object (a number, a string, an array) is kept
		// as pi keeps it: a line of no id, on no branch, the current
		// position (of no messages) when it is the last; null, on which
		// pi's reading fails, is not
		var c bytes.Buffer
		if json.Compact(&c, line) != nil || c.String() == "null" {
			return Entry{}, fmt.Errorf("not a JSON object: %.40q", line)
		}
		return Entry{Raw: c.Bytes()}, nil
	}
	// Members by their exact names, as JavaScript reads them (a struct
	// of encoding/json's would take "Id" for "id"); a name given twice
	// has its last value, as JSON.parse gives it.
	var all map[string]json.RawMessage
	if err := json.Unmarshal(line, &all); err != nil {
		return Entry{}, err
	}
	var err error // the first member of another type than its field's
	member := func(name string, p any) {
		if v, ok := all[name]; ok {
			if e := json.Unmarshal(v, p); e != nil && err == nil {
				err = e
			}
		}
	}
	member("type", &w.Type)
	member("id", &w.ID)
	member("parentId", &w.ParentID)
	member("timestamp", &w.Timestamp)
	member("name", &w.Name)
	member("thinkingLevel", &w.ThinkingLevel)
	w.Message = all["message"]
	str := func(p *string) string {
		if p == nil {
			return ""
		}
		return *p
	}
	e := Entry{Type: str(w.Type), ID: str(w.ID), ParentID: str(w.ParentID), Timestamp: str(w.Timestamp)}
	if entryFields[e.Type] != nil {
		e.extra = extraMembers(e.Type, line)
		if err != nil || w.ID == nil || w.ParentID == nil || w.Timestamp == nil ||
			e.Type == TypeSessionInfo && w.Name == nil || e.Type == TypeThinkingLevel && w.ThinkingLevel == nil {
			e.extra = oddMembers(e.Type, line, e.extra)
		}
		if e.extra != nil || !ownOrder(line, entryFields[e.Type]) {
			e.given = append(json.RawMessage(nil), line...)
		}
	}
	switch e.Type {
	case TypeSession:
		return Entry{}, fmt.Errorf("a second session header")
	case TypeMessage:
		if len(w.Message) == 0 || string(w.Message) == "null" {
			return Entry{}, fmt.Errorf("message entry without a message")
		}
		m, err := host.DecodeMessage(w.Message)
		if err != nil {
			// not an object, or no role to go by: pi keeps it as it is,
			// and it reaches no model
			var c bytes.Buffer
			json.Compact(&c, w.Message)
			m = &host.CustomMessage{Raw: c.Bytes()}
		}
		e.Message = m
	case TypeSessionInfo:
		e.Name = str(w.Name)
	case TypeThinkingLevel:
		e.ThinkingLevel = str(w.ThinkingLevel)
	default:
		e.Raw = append(json.RawMessage(nil), line...)
	}
	return e, nil
}

// isValue reports whether e is a line that is JSON but no object.
func (e *Entry) isValue() bool { return len(e.Raw) > 0 && e.Raw[0] != '{' }

// migrateRole is pi's v2→v3 migration: the "hookMessage" role became
// "custom".
func migrateRole(m host.Message) host.Message {
	c, ok := m.(*host.CustomMessage)
	if !ok || c.Role != "hookMessage" {
		return m
	}
	raw, err := host.EditObject(c.Raw, []host.Member{{Name: "role", Value: json.RawMessage(`"custom"`)}})
	if err != nil {
		return m
	}
	return &host.CustomMessage{Role: "custom", Raw: raw}
}

// timestamp formats t as pi does (JavaScript's toISOString).
func timestamp(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }

func parseTime(iso string) (time.Time, error) { return time.Parse(time.RFC3339Nano, iso) }

// otherNames reports whether the JSON object line may have a member not
// named in known: one pass over its bytes, no decoding. A name written
// with escapes counts as another (extraMembers then decodes it).
func otherNames(line []byte, known []string) bool {
	depth, inString, key, start := 0, false, false, 0
	for i := 0; i < len(line); i++ {
		c := line[i]
		if inString {
			switch c {
			case '\\':
				i++
			case '"':
				inString = false
				if key && !slices.Contains(known, string(line[start:i])) { // no allocation: a conversion in a comparison
					return true
				}
				key = false
			}
			continue
		}
		switch c {
		case '"':
			inString, start = true, i+1
		case '{', '[':
			depth++
			key = depth == 1
			continue
		case '}', ']':
			depth--
		case ',':
			key = depth == 1
			continue
		}
		if c != '"' {
			key = key && (c == ' ' || c == '\t' || c == '\n' || c == '\r')
		}
	}
	return false
}

// ownOrder reports whether the members of the JSON object line that
// known names come in known's order.
func ownOrder(line []byte, known []string) bool {
	s := jsonread.New(line)
	last, ok := -1, true
	s.Members(func(name []byte) {
		if i := slices.Index(known, string(name)); i >= 0 {
			ok, last = ok && i > last, i
		}
		s.Skip()
	})
	return ok
}
