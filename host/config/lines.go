package config

import (
	"fmt"
	"strings"
)

// lineIndex maps key paths, with array indices ("model.name",
// "tool[1].grants.hosts[0]", "tool[0].grants.dirs[1].guest"), to the line
// where they are written, so that problems found after decoding can name
// the line. BurntSushi/toml keeps key positions to itself, and keys them
// without array indices, so the index is built by a scanner of its own
// that follows TOML's lexical rules (strings of all four kinds, comments,
// arrays and inline tables across lines). It runs on text the parser has
// accepted; on anything else it still ends and never panics.
type lineIndex map[string]int

func indexLines(text string) lineIndex {
	s := &lineScanner{text: text, line: 1, idx: lineIndex{}, counts: map[string]int{}}
	s.document()
	return s.idx
}

type lineScanner struct {
	text   string
	i      int
	line   int
	idx    lineIndex
	counts map[string]int // array of tables (indexed path) → elements so far
}

func (s *lineScanner) peek(prefix string) bool { return strings.HasPrefix(s.text[s.i:], prefix) }

func (s *lineScanner) advance(n int) {
	for ; n > 0 && s.i < len(s.text); n-- {
		if s.text[s.i] == '\n' {
			s.line++
		}
		s.i++
	}
}

// blank skips spaces, tabs and comments, and newlines too when lines is set.
func (s *lineScanner) blank(lines bool) {
	for s.i < len(s.text) {
		switch c := s.text[s.i]; {
		case c == ' ' || c == '\t' || c == '\r' || (lines && c == '\n'):
			s.advance(1)
		case c == '#':
			for s.i < len(s.text) && s.text[s.i] != '\n' {
				s.i++
			}
		default:
			return
		}
	}
}

func (s *lineScanner) document() {
	current := ""
	for s.i < len(s.text) {
		s.blank(true)
		if s.i >= len(s.text) {
			return
		}
		start, line := s.i, s.line
		switch {
		case s.peek("[["):
			s.advance(2)
			name := withIndices(s.key(), s.counts)
			s.counts[name]++
			current = fmt.Sprintf("%s[%d]", name, s.counts[name]-1)
			s.idx.set(name, line)
			s.idx.set(current, line)
		case s.peek("["):
			s.advance(1)
			parts := s.key()
			current = withIndices(parts, s.counts)
			// [mcpServers.github] defines mcpServers too, here unless
			// written earlier: an unknown key there is said at this line.
			for n := 1; n < len(parts); n++ {
				s.idx.set(withIndices(parts[:n], s.counts), line)
			}
			s.idx.set(current, line)
		default:
			key := join(current, strings.Join(s.key(), "."))
			s.idx.set(key, line)
			s.blank(false)
			if s.peek("=") {
				s.advance(1)
				s.value(key)
			}
		}
		s.restOfLine()
		if s.i == start {
			s.advance(1) // not TOML: never stop moving
		}
	}
}

// restOfLine skips to the start of the next line.
func (s *lineScanner) restOfLine() {
	for s.i < len(s.text) && s.text[s.i] != '\n' {
		s.i++
	}
	s.advance(1)
}

// key reads a dotted key (bare or quoted parts) and returns its parts.
func (s *lineScanner) key() []string {
	var parts []string
	for {
		s.blank(false)
		if s.i >= len(s.text) {
			return parts
		}
		switch s.text[s.i] {
		case '"', '\'':
			start := s.i
			s.str()
			parts = append(parts, unquote(s.text[start:s.i]))
		default:
			start := s.i
			for s.i < len(s.text) && isBare(s.text[s.i]) {
				s.i++
			}
			if s.i == start {
				return parts
			}
			parts = append(parts, s.text[start:s.i])
		}
		s.blank(false)
		if !s.peek(".") {
			return parts
		}
		s.advance(1)
	}
}

func isBare(c byte) bool {
	return c == '_' || c == '-' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// unquote returns the text of a quoted key; escapes other than \" and \\
// are kept as written (keys that need them name no field of ours).
func unquote(q string) string {
	if len(q) < 2 {
		return q
	}
	inner := q[1 : len(q)-1]
	if q[0] == '"' {
		inner = strings.NewReplacer(`\"`, `"`, `\\`, `\`).Replace(inner)
	}
	return inner
}

// value skips one value written for key, indexing the elements of arrays
// and the keys of inline tables.
func (s *lineScanner) value(key string) {
	s.blank(false)
	if s.i >= len(s.text) {
		return
	}
	switch s.text[s.i] {
	case '"', '\'':
		s.str()
	case '[':
		s.advance(1)
		for n := 0; ; n++ {
			s.blank(true)
			if s.i >= len(s.text) || s.peek("]") {
				break
			}
			elem := fmt.Sprintf("%s[%d]", key, n)
			s.idx.set(elem, s.line)
			before := s.i
			s.value(elem)
			s.blank(true)
			if s.peek(",") {
				s.advance(1)
			} else if s.i == before {
				break
			}
		}
		s.advance(1)
	case '{':
		s.advance(1)
		for {
			s.blank(true)
			if s.i >= len(s.text) || s.peek("}") {
				break
			}
			line, before := s.line, s.i
			sub := join(key, strings.Join(s.key(), "."))
			s.idx.set(sub, line)
			s.blank(false)
			if s.peek("=") {
				s.advance(1)
				s.value(sub)
			}
			s.blank(true)
			if s.peek(",") {
				s.advance(1)
			} else if s.i == before {
				break
			}
		}
		s.advance(1)
	default: // a number, boolean or date: up to what may follow a value
		for s.i < len(s.text) && !strings.ContainsRune(",]}#\n", rune(s.text[s.i])) {
			s.i++
		}
	}
}

// str skips a string of any of the four kinds, starting at its quote.
func (s *lineScanner) str() {
	q := s.text[s.i : s.i+1]
	if s.peek(q + q + q) {
		s.advance(3)
		for s.i < len(s.text) && !s.peek(q+q+q) {
			if q == `"` && s.peek(`\`) {
				s.advance(1)
			}
			s.advance(1)
		}
		s.advance(3)
		for s.peek(q) { // up to two quotes may end the content
			s.advance(1)
		}
		return
	}
	s.advance(1)
	for s.i < len(s.text) && s.text[s.i] != q[0] && s.text[s.i] != '\n' {
		if q == `"` && s.peek(`\`) {
			s.advance(1)
		}
		s.advance(1)
	}
	if s.peek(q) {
		s.advance(1)
	}
}

func (idx lineIndex) set(key string, line int) {
	if _, ok := idx[key]; !ok {
		idx[key] = line
	}
}

// withIndices joins a header's key parts, writing "tool.grants" as
// "tool[2].grants" when tool is an array of tables with three elements so
// far.
func withIndices(parts []string, counts map[string]int) string {
	parts = append([]string(nil), parts...)
	for i := range parts {
		prefix := strings.Join(parts[:i+1], ".")
		if n := counts[prefix]; n > 0 && i < len(parts)-1 {
			parts[i] = fmt.Sprintf("%s[%d]", parts[i], n-1)
		}
	}
	return strings.Join(parts, ".")
}

// line finds key, or the nearest enclosing key that is written, or 0.
func (idx lineIndex) line(key string) int {
	for key != "" {
		if n, ok := idx[key]; ok {
			return n
		}
		cut := strings.LastIndexAny(key, ".[")
		if cut < 0 {
			break
		}
		key = key[:cut]
	}
	return 0
}
