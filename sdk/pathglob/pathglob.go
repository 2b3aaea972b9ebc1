// Package pathglob compiles path globs for plugins, in the syntax of
// bmatcuk/doublestar (and of most tools that take globs), into regular
// expressions on slash-separated paths:
//
//   - * matches any run of characters within one path segment, ? one
//     character;
//   - ** as a whole segment matches any number of segments: "**/" also
//     matches none, so "**/.env" matches ".env" and "a/b/.env", and "a/**"
//     matches "a" and everything under it; ** inside a segment ("a**b")
//     is a plain *;
//   - [abc], [a-z] match one character of a class, [!abc] or [^abc] one
//     character not in it; no class matches "/";
//   - {a,b} matches either alternative; alternatives may hold any of the
//     above, and nest;
//   - \ makes the next character literal ("\*", "\{"), so a pattern has no
//     Windows separators: a path is matched with forward slashes.
//
// Dotfiles are not special: * matches ".env". Matching runs in time linear
// in the path, whatever the pattern (Go's regexp is RE2), so a pattern
// from a model cannot make a plugin backtrack for ever.
package pathglob

import (
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"
)

// Compile turns glob into a regular expression on slash-separated paths.
func Compile(glob string) (*regexp.Regexp, error) {
	if glob == "" {
		return nil, fmt.Errorf("the glob is empty")
	}
	alts, err := expand(glob)
	if err != nil {
		return nil, fmt.Errorf("bad glob %q: %v", glob, err)
	}
	var b strings.Builder
	b.WriteString("^(?:")
	for i, alt := range alts {
		c := compiler{glob: alt}
		if err := c.sequence(); err != nil {
			return nil, fmt.Errorf("bad glob %q: %v", glob, err)
		}
		if i > 0 {
			b.WriteString("|")
		}
		b.WriteString(c.b.String())
	}
	b.WriteString(")$")
	re, err := regexp.Compile(b.String())
	if err != nil {
		return nil, fmt.Errorf("bad glob %q: %v", glob, err)
	}
	return re, nil
}

type compiler struct {
	glob string
	i    int
	b    strings.Builder
}

// sequence translates a glob without braces (see expand).
func (c *compiler) sequence() error {
	for c.i < len(c.glob) {
		ch := c.glob[c.i]
		switch {
		case ch == '\\':
			if c.i+1 == len(c.glob) {
				return fmt.Errorf("it ends with a lone \\")
			}
			c.literal(c.glob[c.i+1 : c.i+2])
			c.i += 2
		case ch == '*':
			c.star()
		case ch == '?':
			c.b.WriteString("[^/]")
			c.i++
		case ch == '[':
			if err := c.class(); err != nil {
				return err
			}
		default:
			c.literal(c.glob[c.i : c.i+1])
			c.i++
		}
	}
	return nil
}

func (c *compiler) literal(s string) { c.b.WriteString(regexp.QuoteMeta(s)) }

// star translates a run of *: ** as a whole segment spans segments.
func (c *compiler) star() {
	start := c.i
	for c.i < len(c.glob) && c.glob[c.i] == '*' {
		c.i++
	}
	wholeSegment := c.i-start == 2 &&
		(start == 0 || c.glob[start-1] == '/') && (c.i == len(c.glob) || c.glob[c.i] == '/')
	switch {
	case !wholeSegment:
		c.b.WriteString("[^/]*")
	case c.i < len(c.glob) && c.glob[c.i] == '/':
		c.i++ // "**/": no segment, or any number of them
		c.b.WriteString("(?:.*/)?")
	default:
		// "a/**" at the end matches "a" too: undo the slash before it.
		if s := c.b.String(); strings.HasSuffix(s, "/") && start > 0 && c.glob[start-1] == '/' {
			c.b.Reset()
			c.b.WriteString(s[:len(s)-1] + "(?:/.*)?")
		} else {
			c.b.WriteString(".*")
		}
	}
}

// class translates [...]: a class never matches "/".
func (c *compiler) class() error {
	j := c.i + 1
	negate := j < len(c.glob) && (c.glob[j] == '!' || c.glob[j] == '^')
	if negate {
		j++
	}
	var members strings.Builder
	for first := true; ; first = false {
		if j >= len(c.glob) {
			return fmt.Errorf("unclosed [")
		}
		if c.glob[j] == ']' {
			if first {
				return fmt.Errorf("a class is empty")
			}
			break
		}
		if c.glob[j] == '\\' {
			if j+1 == len(c.glob) {
				return fmt.Errorf("unclosed [")
			}
			j++
		} else if c.glob[j] == '-' && !first && j+1 < len(c.glob) && c.glob[j+1] != ']' {
			members.WriteByte('-') // a range
			j++
			continue
		}
		r, size := utf8.DecodeRuneInString(c.glob[j:])
		members.WriteString(classChar(r))
		j += size
	}
	if negate {
		c.b.WriteString("[^/" + members.String() + "]")
	} else {
		c.b.WriteString("(?:[" + members.String() + "])")
		// A class naming "/" would still not match it: checked below.
		if strings.Contains(members.String(), "/") {
			return fmt.Errorf("a class cannot match /")
		}
	}
	c.i = j + 1
	return nil
}

// classChar writes r so that the regexp class reads it literally.
func classChar(r rune) string {
	switch r {
	case '\\', ']', '[', '^', '-':
		return `\` + string(r)
	}
	return string(r)
}

// maxAlternatives bounds what braces expand to, so that a pattern's size
// bounds its regular expression's.
const maxAlternatives = 1024

// expand rewrites the braces of glob away: "a{b,c{d,e}}" is "ab", "acd",
// "ace". Each alternative is then a glob of its own, as in doublestar, so
// "{,a/}**" holds the globstar "**". Braces inside a class and escaped
// ones are literal.
func expand(glob string) ([]string, error) {
	alts, rest, err := expandSeq(glob, 0)
	if err != nil {
		return nil, err
	}
	if rest != len(glob) { // a ',' outside braces is literal
		if glob[rest] == '}' {
			return nil, fmt.Errorf("} without {")
		}
		tail, err := expand(glob[rest+1:])
		if err != nil {
			return nil, err
		}
		return product(alts, []string{glob[rest : rest+1]}, tail)
	}
	return alts, nil
}

// expandSeq expands glob from i until its end or a ',' or '}' at depth
// 0, and returns the alternatives and where it stopped.
func expandSeq(glob string, i int) ([]string, int, error) {
	alts := []string{""}
	start := i
	flush := func(end int) {
		for k := range alts {
			alts[k] += glob[start:end]
		}
	}
	for i < len(glob) {
		switch glob[i] {
		case '\\':
			i += 2
		case '[':
			j := i + 1
			if j < len(glob) && (glob[j] == '!' || glob[j] == '^') {
				j++
			}
			for j < len(glob) && glob[j] != ']' {
				if glob[j] == '\\' {
					j++
				}
				j++
			}
			i = j + 1
		case ',', '}':
			flush(i)
			return alts, i, nil
		case '{':
			flush(i)
			var options []string
			j := i + 1
			for {
				opt, end, err := expandSeq(glob, j)
				if err != nil {
					return nil, 0, err
				}
				if end >= len(glob) {
					return nil, 0, fmt.Errorf("unclosed {")
				}
				options = append(options, opt...)
				if glob[end] == '}' {
					i = end + 1
					break
				}
				j = end + 1
			}
			var err error
			if alts, err = product(alts, options); err != nil {
				return nil, 0, err
			}
			start = i
		default:
			i++
		}
	}
	i = min(i, len(glob))
	flush(i)
	return alts, i, nil
}

// product is every concatenation of one string from each set, in order.
func product(sets ...[]string) ([]string, error) {
	out := []string{""}
	for _, set := range sets {
		if len(out)*len(set) > maxAlternatives {
			return nil, fmt.Errorf("its braces make more than %d alternatives", maxAlternatives)
		}
		next := make([]string, 0, len(out)*len(set))
		for _, a := range out {
			for _, b := range set {
				next = append(next, a+b)
			}
		}
		out = next
	}
	return out, nil
}
