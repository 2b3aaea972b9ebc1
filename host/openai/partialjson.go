package openai

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"strconv"
	"strings"

	"github.com/wasmagent/wasmagent/host"
)

// streamingArgs is pi-ai's parseStreamingJson: the value the arguments
// streamed so far stand for, as JSON text, so that a partial tool call's
// arguments are an object (or whatever the prefix is) in every update, as
// pi's are, and never a string. It tries the text as it is, then repaired
// (pi-ai's repairJson), then partial-json 0.1.7's parse of each, and
// gives {} when none works.
func streamingArgs(raw []byte) json.RawMessage {
	s := string(raw)
	if strings.TrimSpace(s) == "" {
		return json.RawMessage(`{}`)
	}
	if v, ok := jsonParse(s); ok {
		return json.RawMessage(v)
	}
	repaired := repairJSON(s)
	if repaired != s {
		if v, ok := jsonParse(repaired); ok {
			return json.RawMessage(v)
		}
	}
	for _, t := range []string{s, repaired} {
		if v, err := partialParse(t); err == nil && v != "null" {
			return json.RawMessage(v)
		}
	}
	return json.RawMessage(`{}`)
}

// jsonParse is JSON.stringify(JSON.parse(s)) for what it needs: s's value
// as compact JSON text (a number too large for a double is null, as
// JavaScript writes Infinity), or false when s is not JSON.
func jsonParse(s string) (string, bool) {
	if !json.Valid([]byte(s)) {
		return "", false
	}
	t := strings.TrimSpace(s)
	if len(t) > 0 && (t[0] == '-' || t[0] >= '0' && t[0] <= '9') {
		if f, err := strconv.ParseFloat(t, 64); err != nil || math.IsInf(f, 0) {
			return "null", true
		}
		return t, true
	}
	var b bytes.Buffer
	json.Compact(&b, []byte(s))
	return b.String(), true
}

// repairJSON is pi-ai's repairJson: inside strings, raw control
// characters are escaped and a backslash before anything JSON does not
// escape is doubled.
func repairJSON(s string) string {
	var b strings.Builder
	in := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case !in:
			b.WriteByte(c)
			in = c == '"'
		case c == '"':
			b.WriteByte(c)
			in = false
		case c == '\\':
			if i+1 >= len(s) {
				b.WriteString(`\\`)
				continue
			}
			next := s[i+1]
			if next == 'u' && i+6 <= len(s) && isHex4(s[i+2:i+6]) {
				b.WriteString(s[i : i+6])
				i += 5
				continue
			}
			if strings.IndexByte(`"\/bfnrtu`, next) >= 0 {
				b.WriteByte('\\')
				b.WriteByte(next)
				i++
				continue
			}
			b.WriteString(`\\`)
		case c < 0x20:
			switch c {
			case '\b':
				b.WriteString(`\b`)
			case '\f':
				b.WriteString(`\f`)
			case '\n':
				b.WriteString(`\n`)
			case '\r':
				b.WriteString(`\r`)
			case '\t':
				b.WriteString(`\t`)
			default:
				b.WriteString(`\u00`)
				b.WriteByte("0123456789abcdef"[c>>4])
				b.WriteByte("0123456789abcdef"[c&15])
			}
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

func isHex4(s string) bool {
	for i := 0; i < 4; i++ {
		if !strings.ContainsRune("0123456789abcdefABCDEF", rune(s[i])) {
			return false
		}
	}
	return true
}

var errPartial = errors.New("partial JSON")

// partialParse is partial-json 0.1.7's parse with every kind allowed
// (pi-ai's use), its quirks included, giving the value as JSON text.
func partialParse(src string) (string, error) {
	p := &pjParser{s: strings.TrimSpace(src)}
	if p.s == "" {
		return "", errPartial
	}
	return p.any()
}

type pjParser struct {
	s     string
	i     int
	depth int // arrays and objects open around p.i
}

// maxPartialDepth bounds how deep partialParse nests: each level copies
// the text of the levels inside it, so the parse costs its input's size
// times its depth (1 MiB of "[" took minutes and a stack of a million
// frames). A value nested deeper is cut at the bound, as partial-json's
// own parse is cut where JavaScript's stack runs out (its innermost
// array or object still open catches the RangeError and ends there).
// Arguments nested deeper fail validation in any case
// (host.MaxArgumentDepth).
const maxPartialDepth = host.MaxArgumentDepth

var errTooDeep = errors.New("partial JSON nested too deep")

func (p *pjParser) at(i int) byte {
	if i < 0 || i >= len(p.s) {
		return 0
	}
	return p.s[i]
}

func (p *pjParser) blank() {
	for p.i < len(p.s) && strings.IndexByte(" \n\r\t", p.s[p.i]) >= 0 {
		p.i++
	}
}

func (p *pjParser) any() (string, error) {
	p.blank()
	if p.i >= len(p.s) {
		return "", errPartial
	}
	switch p.s[p.i] {
	case '"':
		return p.str()
	case '{', '[':
		if p.depth >= maxPartialDepth {
			return "", errTooDeep
		}
		p.depth++
		defer func() { p.depth-- }()
		if p.s[p.i] == '{' {
			return p.obj(), nil
		}
		return p.arr(), nil
	}
	rest := p.s[p.i:]
	for _, lit := range []struct{ word, value string }{
		{"null", "null"}, {"true", "true"}, {"false", "false"},
		{"Infinity", "null"}, {"-Infinity", "null"}, {"NaN", "null"},
	} {
		short := len(rest) < len(lit.word) && strings.HasPrefix(lit.word, rest)
		if lit.word == "-Infinity" {
			short = short && len(rest) > 1
		}
		if strings.HasPrefix(rest, lit.word) || short {
			p.i += len(lit.word)
			return lit.value, nil
		}
	}
	return p.num()
}

func (p *pjParser) str() (string, error) {
	start := p.i
	escape := false
	p.i++
	for p.i < len(p.s) && (p.s[p.i] != '"' || escape && p.at(p.i-1) == '\\') {
		escape = p.s[p.i] == '\\' && !escape
		p.i++
	}
	if p.at(p.i) == '"' {
		p.i++
		if v, ok := jsonParse(jsSubstring(p.s, start, p.i)); ok {
			return v, nil
		}
		return "", errors.New("malformed string")
	}
	end := p.i
	if escape {
		end--
	}
	if v, ok := jsonParse(jsSubstring(p.s, start, end) + `"`); ok {
		return v, nil
	}
	if v, ok := jsonParse(jsSubstring(p.s, start, strings.LastIndex(p.s, `\`)) + `"`); ok {
		return v, nil
	}
	return "", errors.New("malformed string")
}

func (p *pjParser) obj() string {
	p.i++
	p.blank()
	var keys []string
	vals := map[string]string{}
	out := func() string {
		var b bytes.Buffer
		b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(k)
			b.WriteByte(':')
			b.WriteString(vals[k])
		}
		b.WriteByte('}')
		return b.String()
	}
	for p.at(p.i) != '}' {
		p.blank()
		if p.i >= len(p.s) {
			return out()
		}
		key, err := p.str()
		if err != nil || !strings.HasPrefix(key, `"`) {
			return out() // a key that is not a string: JavaScript would make it one; rare enough to stop here
		}
		p.blank()
		p.i++ // the colon, unchecked
		v, err := p.any()
		if err != nil {
			return out()
		}
		if _, seen := vals[key]; !seen {
			keys = append(keys, key)
		}
		vals[key] = v
		p.blank()
		if p.at(p.i) == ',' {
			p.i++
		}
	}
	p.i++
	return out()
}

func (p *pjParser) arr() string {
	p.i++
	var items []string
	out := func() string { return "[" + strings.Join(items, ",") + "]" }
	for p.at(p.i) != ']' {
		v, err := p.any()
		if err != nil {
			return out()
		}
		items = append(items, v)
		p.blank()
		if p.at(p.i) == ',' {
			p.i++
		}
	}
	p.i++
	return out()
}

func (p *pjParser) num() (string, error) {
	if p.i == 0 {
		if p.s == "-" {
			return "", errors.New("malformed number")
		}
		if v, ok := jsonParse(p.s); ok {
			return v, nil
		}
		if v, ok := jsonParse(jsSubstring(p.s, 0, strings.LastIndex(p.s, "e"))); ok {
			return v, nil
		}
		return "", errors.New("malformed number")
	}
	start := p.i
	if p.at(p.i) == '-' {
		p.i++
	}
	for p.i < len(p.s) && strings.IndexByte(",]}", p.s[p.i]) < 0 {
		p.i++
	}
	if v, ok := jsonParse(p.s[start:p.i]); ok {
		return v, nil
	}
	if p.s[start:p.i] == "-" {
		return "", errPartial
	}
	if v, ok := jsonParse(jsSubstring(p.s, start, strings.LastIndex(p.s, "e"))); ok {
		return v, nil
	}
	return "", errors.New("malformed number")
}

// jsSubstring is String.prototype.substring: indexes clamped to the
// string, and swapped when the end comes first.
func jsSubstring(s string, a, b int) string {
	a, b = max(0, min(a, len(s))), max(0, min(b, len(s)))
	if a > b {
		a, b = b, a
	}
	return s[a:b]
}
