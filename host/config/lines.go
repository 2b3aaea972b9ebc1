package config

import (
	"fmt"
	"regexp"
	"strings"
)

// lineIndex maps key paths ("model.name", "tool[1].grants.hosts") to the
// line where they are written, so that errors found after decoding can
// name the line. BurntSushi/toml keeps key positions to itself.
type lineIndex map[string]int

var (
	arrayHeader = regexp.MustCompile(`^\[\[\s*([^\]]+?)\s*\]\]`)
	tableHeader = regexp.MustCompile(`^\[\s*([^\]]+?)\s*\]`)
	keyLine     = regexp.MustCompile(`^("[^"]*"|'[^']*'|[A-Za-z0-9_.\-"' ]+?)\s*=`)
)

func indexLines(text string) lineIndex {
	idx := lineIndex{}
	counts := map[string]int{} // array of tables → elements so far
	current := ""
	skip := "" // the closer of a multi-line value being skipped
	depth := 0 // open brackets of a multi-line array
	for n, line := range strings.Split(text, "\n") {
		t := strings.TrimSpace(line)
		if skip != "" {
			if strings.Contains(t, skip) {
				skip = ""
			}
			continue
		}
		if depth > 0 {
			depth += strings.Count(t, "[") - strings.Count(t, "]")
			continue
		}
		if t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		if m := arrayHeader.FindStringSubmatch(t); m != nil {
			name := withIndices(cleanKey(m[1]), counts)
			counts[name]++
			current = fmt.Sprintf("%s[%d]", name, counts[name]-1)
			idx.set(name, n+1)
			idx.set(current, n+1)
			continue
		}
		if m := tableHeader.FindStringSubmatch(t); m != nil {
			current = withIndices(cleanKey(m[1]), counts)
			idx.set(current, n+1)
			continue
		}
		if m := keyLine.FindStringSubmatch(t); m != nil {
			key := cleanKey(m[1])
			if current != "" {
				key = current + "." + key
			}
			idx.set(key, n+1)
			rest := strings.TrimSpace(t[len(m[0]):])
			switch {
			case strings.HasPrefix(rest, `"""`) && strings.Count(rest, `"""`) == 1:
				skip = `"""`
			case strings.HasPrefix(rest, `'''`) && strings.Count(rest, `'''`) == 1:
				skip = `'''`
			case strings.HasPrefix(rest, "["):
				depth = strings.Count(rest, "[") - strings.Count(rest, "]")
			}
		}
	}
	return idx
}

func (idx lineIndex) set(key string, line int) {
	if _, ok := idx[key]; !ok {
		idx[key] = line
	}
}

// withIndices rewrites "tool.grants" as "tool[2].grants" when tool is an
// array of tables with three elements so far.
func withIndices(key string, counts map[string]int) string {
	parts := strings.Split(key, ".")
	for i := range parts {
		prefix := strings.Join(parts[:i+1], ".")
		if n := counts[prefix]; n > 0 && i < len(parts)-1 {
			parts[i] = fmt.Sprintf("%s[%d]", parts[i], n-1)
		}
	}
	return strings.Join(parts, ".")
}

func cleanKey(k string) string {
	parts := strings.Split(k, ".")
	for i, p := range parts {
		parts[i] = strings.Trim(strings.TrimSpace(p), `"'`)
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

// unindexed is key without its array indices.
func unindexed(key string) string {
	var b strings.Builder
	depth := 0
	for _, c := range key {
		switch {
		case c == '[':
			depth++
		case c == ']':
			depth--
		case depth == 0:
			b.WriteRune(c)
		}
	}
	return b.String()
}
