package session

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/wasmagent/wasmagent/host"
)

// ErrNotSession is returned for data whose first line is not a session
// header.
var ErrNotSession = errors.New("not a session file: the first line is not a session header")

// Transcript is a session file decoded: its header, its entries in file
// order, and what was wrong with it.
type Transcript struct {
	Header  Header
	Entries []Entry
	// Warnings say what was dropped or repaired, one sentence each, naming
	// the line.
	Warnings []string
	// Complete is the length of the data up to the end of its last whole
	// line: a writer killed mid-line leaves a torn tail after it, which an
	// appender must cut before writing.
	Complete int64

	olderVersion bool // the file is of a version before 3
	dropped      int  // lines after the header that did not decode
}

// Decode reads a session file in pi's format (versions 1 to 3; older
// versions are migrated in memory). It never fails on a bad entry: a torn
// last line (a writer killed mid-write), a line that is not JSON or an
// entry that does not decode is dropped with a warning. Only a missing or
// unreadable header is an error.
func Decode(data []byte) (*Transcript, error) {
	t := &Transcript{}
	lines := bytes.Split(data, []byte{'\n'})
	last := len(lines) - 1
	if len(lines[last]) > 0 {
		if len(bytes.TrimSpace(lines[last])) > 0 {
			t.Warnings = append(t.Warnings, fmt.Sprintf("line %d: torn last line dropped (%d bytes; the writer stopped mid-write)", last+1, len(lines[last])))
		}
	}
	t.Complete = int64(len(data) - len(lines[last]))
	lines = lines[:last]
	header := -1
	for i, line := range lines {
		line = bytes.TrimSuffix(line, []byte{'\r'})
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		if header < 0 {
			h, err := decodeHeader(line)
			if err != nil {
				return nil, fmt.Errorf("line %d: %w", i+1, err)
			}
			t.Header, header = h, i
			t.olderVersion = h.Version < Version
			continue
		}
		e, err := decodeEntry(line)
		if err != nil {
			t.Warnings = append(t.Warnings, fmt.Sprintf("line %d: entry dropped: %v", i+1, err))
			t.dropped++
			continue
		}
		t.Entries = append(t.Entries, e)
	}
	if header < 0 {
		return nil, ErrNotSession
	}
	t.migrate()
	return t, nil
}

func decodeHeader(line []byte) (Header, error) {
	var h Header
	if err := json.Unmarshal(line, &h); err != nil || h.Type != TypeSession || h.ID == "" {
		return Header{}, ErrNotSession
	}
	if h.Version == 0 {
		h.Version = 1
	}
	if h.Version > Version {
		return Header{}, fmt.Errorf("session format version %d is newer than this wasmagent reads (%d)", h.Version, Version)
	}
	h.given = append(json.RawMessage(nil), line...)
	return h, nil
}

// migrate is pi's migration of an older version, and makes every id
// unique, so the tree can be walked: version 1's entries (no ids) get new
// ids and a linear tree, and its compactions' firstKeptEntryIndex (an
// index into the file's entries, the header being 0) becomes the
// firstKeptEntryId of the entry there, as far as that entry has an id by
// then; a message of role "hookMessage" in a version before 3 becomes
// "custom". The file is rewritten only when it is opened for writing.
func (t *Transcript) migrate() {
	v := t.Header.Version
	seen := make(map[string]bool, len(t.Entries))
	prev := ""
	for i := range t.Entries {
		e := &t.Entries[i]
		if e.isValue() {
			continue // no object: no id to give (pi's own migration fails on it)
		}
		if v < 2 || e.ID == "" || seen[e.ID] {
			if v >= 2 && e.ID != "" {
				t.Warnings = append(t.Warnings, fmt.Sprintf("entry id %s repeated; renamed", e.ID))
			}
			e.ID = newEntryID(func(id string) bool { return seen[id] })
			delete(e.extra, "id")
			if v < 2 {
				e.ParentID = prev
				delete(e.extra, "parentId")
			}
			e.Raw = withTree(e.Raw, e.ID, e.ParentID)
		}
		if v < 2 && e.Type == TypeCompaction {
			e.Raw = keptIndexToID(e.Raw, t.Entries)
		}
		if v < 3 {
			e.Message = migrateRole(e.Message)
		}
		seen[e.ID] = true
		prev = e.ID
	}
	t.Header.Version = Version
}

// keptIndexToID replaces a version-1 compaction's firstKeptEntryIndex by
// the id of the entry at that index (entries[index-1]: index 0 is the
// header), as pi does: the id where the entry had one, else after its
// other members; an entry without an id yet leaves none.
func keptIndexToID(raw json.RawMessage, entries []Entry) json.RawMessage {
	var obj map[string]json.RawMessage
	if json.Unmarshal(raw, &obj) != nil {
		return raw
	}
	var index float64
	if json.Unmarshal(obj["firstKeptEntryIndex"], &index) != nil {
		return raw // not a number: pi leaves it
	}
	var set []host.Member
	if i := int(index); float64(i) == index && i >= 1 && i <= len(entries) && entries[i-1].ID != "" {
		id, _ := json.Marshal(entries[i-1].ID)
		set = append(set, host.Member{Name: "firstKeptEntryId", Value: id})
	}
	out, err := host.EditObject(raw, set, "firstKeptEntryIndex")
	if err != nil {
		return raw
	}
	return out
}

// withTree sets the id and parentId of a raw entry, keeping its other
// fields where they are, as pi's assignments do.
func withTree(raw json.RawMessage, id, parent string) json.RawMessage {
	if len(raw) == 0 {
		return nil
	}
	idJSON, _ := json.Marshal(id)
	parentJSON := json.RawMessage("null")
	if parent != "" {
		parentJSON, _ = json.Marshal(parent)
	}
	out, err := host.EditObject(raw, []host.Member{{Name: "id", Value: idJSON}, {Name: "parentId", Value: parentJSON}})
	if err != nil {
		return nil
	}
	return out
}

// Leaf is the id of the current position: the last entry, as pi reads it
// ("" when that is a line that is no object: a position of no messages).
func (t *Transcript) Leaf() string {
	if len(t.Entries) == 0 {
		return ""
	}
	return t.Entries[len(t.Entries)-1].ID
}

// Name is the session's display name: the latest session_info entry's.
func (t *Transcript) Name() string {
	for i := len(t.Entries) - 1; i >= 0; i-- {
		if t.Entries[i].Type == TypeSessionInfo {
			return strings.TrimSpace(t.Entries[i].Name)
		}
	}
	return ""
}

// Branch returns the entries from the root to leaf, in order. A parent
// that is missing ends the walk there; a cycle is cut.
func (t *Transcript) Branch(leaf string) []Entry {
	byID := make(map[string]int, len(t.Entries))
	for i, e := range t.Entries {
		byID[e.ID] = i
	}
	var path []Entry
	seen := map[string]bool{}
	for id := leaf; id != "" && !seen[id]; {
		i, ok := byID[id]
		if !ok {
			break
		}
		seen[id] = true
		path = append(path, t.Entries[i])
		id = t.Entries[i].ParentID
	}
	for i, j := 0, len(path)-1; i < j; i, j = i+1, j-1 {
		path[i], path[j] = path[j], path[i]
	}
	return path
}
