package session

import (
	"github.com/wasmagent/wasmagent/host"
	"github.com/wasmagent/wasmagent/host/internal/jsonread"
)

// decodeEntryFast decodes an entry line in the shape pi and wasmagent
// write it, in one pass over the line (and one over its message): ok is
// false for anything else (a member of another kind or absent, a member
// a decoded type does not write, a line that is not JSON), which
// decodeEntry then reads with encoding/json, to the same result.
func decodeEntryFast(line []byte) (Entry, bool) {
	const (
		fType = 1 << iota
		fID
		fParentID
		fTimestamp
		fMessage
		fName
		fThinkingLevel
		fOther
	)
	s := jsonread.New(line)
	var e Entry
	var message []byte
	seen, last, inOrder := 0, 0, true
	s.Members(func(name []byte) {
		bit := 0
		switch string(name) {
		case "type":
			bit = fType
			seen, e.Type = seen|fType, s.Str()
		case "id":
			bit = fID
			seen, e.ID = seen|fID, s.Str()
		case "parentId":
			bit = fParentID
			seen |= fParentID
			if s.Peek() == 'n' {
				s.Skip() // null: a root
			} else {
				e.ParentID = s.Str()
			}
		case "timestamp":
			bit = fTimestamp
			seen, e.Timestamp = seen|fTimestamp, s.Str()
		case "message":
			bit = fMessage
			seen, message = seen|fMessage, s.Skip()
		case "name":
			bit = fName
			seen, e.Name = seen|fName, s.Str()
		case "thinkingLevel":
			bit = fThinkingLevel
			seen, e.ThinkingLevel = seen|fThinkingLevel, s.Str()
		default:
			seen |= fOther
			s.Skip()
		}
		// in the order this package writes them (bits ascending), or
		// the line keeps its own (decodeEntryJSON)
		if bit != 0 {
			inOrder, last = inOrder && bit > last, bit
		}
	})
	if !s.End() || !inOrder || seen&(fType|fID|fParentID|fTimestamp) != fType|fID|fParentID|fTimestamp {
		return Entry{}, false
	}
	switch e.Type {
	case TypeMessage:
		if seen != fType|fID|fParentID|fTimestamp|fMessage || string(message) == "null" {
			return Entry{}, false
		}
		m, err := host.DecodeMessage(message)
		if err != nil {
			return Entry{}, false
		}
		e.Message = m
	case TypeSessionInfo:
		if seen != fType|fID|fParentID|fTimestamp|fName {
			return Entry{}, false
		}
	case TypeThinkingLevel:
		if seen != fType|fID|fParentID|fTimestamp|fThinkingLevel {
			return Entry{}, false
		}
	case TypeSession, "":
		return Entry{}, false
	default:
		e.Name, e.ThinkingLevel = "", ""
		e.Raw = append([]byte(nil), line...)
	}
	return e, true
}
