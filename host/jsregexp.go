package host

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// jsRegexp compiles a schema's pattern as pi-ai's validator does (TypeBox:
// new RegExp(pattern, "u")) as far as RE2 can: the constructs that mean
// something else in JavaScript are rewritten into RE2 that means the
// same (docs/loop.md 15.4):
//
//   - "." is any character but \n, \r, U+2028 and U+2029 (RE2's: but \n);
//   - \s and \S are JavaScript's white space, Unicode's spaces and the
//     BOM included (RE2's: six ASCII characters);
//   - \uXXXX (a surrogate pair as one character), \u{X…}, \cX and \0 are
//     the characters they name;
//   - [^] is any character, [] none.
//
// \d, \w, \b, anchors, classes, groups and quantifiers mean the same in
// both. Lookaround and back references have no RE2 form: a pattern with
// them does not compile, and its schema neither.
func jsRegexp(pattern string) (jsonschema.Regexp, error) {
	translated, err := translateJSRegexp(pattern)
	if err != nil {
		return nil, err
	}
	re, err := regexp.Compile(translated)
	if err != nil {
		return nil, err
	}
	return jsPattern{re: re, src: pattern}, nil
}

type jsPattern struct {
	re  *regexp.Regexp
	src string
}

func (p jsPattern) MatchString(s string) bool { return p.re.MatchString(s) }
func (p jsPattern) String() string            { return p.src }

// jsSpace is JavaScript's \s, as the inside of a class.
const jsSpace = `\t\n\x{0B}\f\r \x{A0}\x{1680}\x{2000}-\x{200A}\x{2028}\x{2029}\x{202F}\x{205F}\x{3000}\x{FEFF}`

func translateJSRegexp(p string) (string, error) {
	var b strings.Builder
	inClass := false
	for i := 0; i < len(p); {
		c := p[i]
		switch {
		case c == '\\':
			if i+1 >= len(p) {
				return "", fmt.Errorf("pattern %q ends with a backslash", p)
			}
			n, text, err := jsEscape(p[i:], inClass)
			if err != nil {
				return "", fmt.Errorf("pattern %q: %w", p, err)
			}
			b.WriteString(text)
			i += n
			continue
		case inClass:
			if c == ']' {
				inClass = false
			}
		case c == '[':
			switch {
			case strings.HasPrefix(p[i:], "[^]"):
				b.WriteString(`[\x{0}-\x{10FFFF}]`)
				i += 3
				continue
			case strings.HasPrefix(p[i:], "[]"):
				b.WriteString(`[^\x{0}-\x{10FFFF}]`)
				i += 2
				continue
			}
			inClass = true
			b.WriteByte(c)
			if strings.HasPrefix(p[i+1:], "^") {
				b.WriteByte('^')
				i++
			}
			if strings.HasPrefix(p[i+1:], "]") { // RE2 takes a leading ] as a member
				return "", fmt.Errorf("pattern %q: an empty class", p)
			}
			i++
			continue
		case c == '.':
			b.WriteString(`[^\n\r\x{2028}\x{2029}]`)
			i++
			continue
		}
		_, size := utf8.DecodeRuneInString(p[i:])
		b.WriteString(p[i : i+size])
		i += size
	}
	return b.String(), nil
}

// jsEscape translates the escape at the start of s: it returns how many
// bytes it took and its RE2 text.
func jsEscape(s string, inClass bool) (int, string, error) {
	c := s[1]
	switch c {
	case 's':
		if inClass {
			return 2, jsSpace, nil
		}
		return 2, "[" + jsSpace + "]", nil
	case 'S':
		if inClass {
			return 0, "", fmt.Errorf(`\S inside a class has no RE2 form`)
		}
		return 2, "[^" + jsSpace + "]", nil
	case 'u':
		if strings.HasPrefix(s, `\u{`) {
			end := strings.IndexByte(s, '}')
			if end < 0 {
				return 0, "", fmt.Errorf(`unterminated \u{`)
			}
			r, err := strconv.ParseUint(s[3:end], 16, 32)
			if err != nil || r > utf8.MaxRune {
				return 0, "", fmt.Errorf(`invalid \u{%s}`, s[3:end])
			}
			return end + 1, fmt.Sprintf(`\x{%X}`, r), nil
		}
		hi, ok := hex4(s[2:])
		if !ok {
			return 0, "", fmt.Errorf(`invalid \u escape`)
		}
		if hi >= 0xD800 && hi < 0xDC00 && strings.HasPrefix(s[6:], `\u`) {
			if lo, ok := hex4(s[8:]); ok && lo >= 0xDC00 && lo < 0xE000 {
				return 12, fmt.Sprintf(`\x{%X}`, 0x10000+(hi-0xD800)<<10+(lo-0xDC00)), nil
			}
		}
		return 6, fmt.Sprintf(`\x{%X}`, hi), nil
	case 'c':
		if len(s) > 2 && (s[2]|0x20) >= 'a' && (s[2]|0x20) <= 'z' {
			return 3, fmt.Sprintf(`\x{%X}`, s[2]%32), nil
		}
	case '0':
		if len(s) == 2 || s[2] < '0' || s[2] > '9' {
			return 2, `\x00`, nil
		}
	case 'k':
		return 0, "", fmt.Errorf("back references have no RE2 form")
	}
	if c >= '1' && c <= '9' {
		return 0, "", fmt.Errorf("back references have no RE2 form")
	}
	_, size := utf8.DecodeRuneInString(s[1:])
	return 1 + size, s[:1+size], nil
}

func hex4(s string) (int, bool) {
	if len(s) < 4 {
		return 0, false
	}
	n, err := strconv.ParseUint(s[:4], 16, 32)
	return int(n), err == nil
}
