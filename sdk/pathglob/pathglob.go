// Package pathglob compiles path globs with ** for plugins: * and ? match
// within one path segment, [...] is a character class ([!...] negated),
// and ** matches any number of segments ("**/" also matches none, so
// "**/.env" matches ".env" and "a/b/.env").
package pathglob

import (
	"fmt"
	"regexp"
	"strings"
)

// Compile turns glob into a regular expression on slash-separated paths.
func Compile(glob string) (*regexp.Regexp, error) {
	if glob == "" {
		return nil, fmt.Errorf("the glob is empty")
	}
	var b strings.Builder
	b.WriteString("^")
	for i := 0; i < len(glob); i++ {
		switch ch := glob[i]; ch {
		case '*':
			if i+1 < len(glob) && glob[i+1] == '*' {
				i++
				if i+1 < len(glob) && glob[i+1] == '/' {
					i++
					b.WriteString("(?:.*/)?")
				} else {
					b.WriteString(".*")
				}
			} else {
				b.WriteString("[^/]*")
			}
		case '?':
			b.WriteString("[^/]")
		case '[':
			j := strings.IndexByte(glob[i:], ']')
			if j < 0 {
				return nil, fmt.Errorf("bad glob %q: unclosed [", glob)
			}
			class := glob[i+1 : i+j]
			if strings.HasPrefix(class, "!") {
				class = "^" + class[1:]
			}
			b.WriteString("[" + class + "]")
			i += j
		default:
			b.WriteString(regexp.QuoteMeta(string(ch)))
		}
	}
	b.WriteString("$")
	re, err := regexp.Compile(b.String())
	if err != nil {
		return nil, fmt.Errorf("bad glob %q: %v", glob, err)
	}
	return re, nil
}
