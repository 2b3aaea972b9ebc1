package session

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/wasmagent/wasmagent/host"
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
}

// entryJSON is the wire form of the entries this package writes.
type entryJSON struct {
	Type          string          `json:"type"`
	ID            string          `json:"id"`
	ParentID      *string         `json:"parentId"`
	Timestamp     string          `json:"timestamp"`
	Message       json.RawMessage `json:"message,omitempty"`
	Name          *string         `json:"name,omitempty"`
	ThinkingLevel string          `json:"thinkingLevel,omitempty"`
}

// MarshalJSON implements json.Marshaler: one line of pi's format.
func (e Entry) MarshalJSON() ([]byte, error) {
	if len(e.Raw) > 0 {
		return e.Raw, nil
	}
	w := entryJSON{Type: e.Type, ID: e.ID, Timestamp: e.Timestamp, ThinkingLevel: e.ThinkingLevel}
	if e.ParentID != "" {
		w.ParentID = &e.ParentID
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
		w.Name = &e.Name
	}
	return json.Marshal(w)
}

// decodeEntry decodes one line after the header.
func decodeEntry(line []byte) (Entry, error) {
	var w struct {
		Type          string          `json:"type"`
		ID            string          `json:"id"`
		ParentID      *string         `json:"parentId"`
		Timestamp     string          `json:"timestamp"`
		Message       json.RawMessage `json:"message"`
		Name          string          `json:"name"`
		ThinkingLevel string          `json:"thinkingLevel"`
	}
	if err := json.Unmarshal(line, &w); err != nil {
		return Entry{}, err
	}
	if w.Type == "" {
		return Entry{}, fmt.Errorf("no entry type")
	}
	e := Entry{Type: w.Type, ID: w.ID, Timestamp: w.Timestamp}
	if w.ParentID != nil {
		e.ParentID = *w.ParentID
	}
	switch w.Type {
	case TypeSession:
		return Entry{}, fmt.Errorf("a second session header")
	case TypeMessage:
		if len(w.Message) == 0 || string(w.Message) == "null" {
			return Entry{}, fmt.Errorf("message entry without a message")
		}
		m, err := host.DecodeMessage(w.Message)
		if err != nil {
			return Entry{}, err
		}
		e.Message = migrateRole(m)
	case TypeSessionInfo:
		e.Name = w.Name
	case TypeThinkingLevel:
		e.ThinkingLevel = w.ThinkingLevel
	default:
		e.Raw = append(json.RawMessage(nil), line...)
	}
	return e, nil
}

// migrateRole is pi's v2→v3 migration: the "hookMessage" role became
// "custom".
func migrateRole(m host.Message) host.Message {
	c, ok := m.(*host.CustomMessage)
	if !ok || c.Role != "hookMessage" {
		return m
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(c.Raw, &obj) != nil {
		return m
	}
	obj["role"] = json.RawMessage(`"custom"`)
	raw, err := json.Marshal(obj)
	if err != nil {
		return m
	}
	return &host.CustomMessage{Role: "custom", Raw: raw}
}

// timestamp formats t as pi does (JavaScript's toISOString).
func timestamp(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }

func parseTime(iso string) (time.Time, error) { return time.Parse(time.RFC3339Nano, iso) }
