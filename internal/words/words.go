// Package words writes counts and lists in words that agree with them:
// "1 line", "2 lines", "tool wordcount", "tools read, write". Every message
// of the command, of agent.toml's checks and of the first-party plugins
// that counts things says it through Count or Named (TestCountsAgree in
// internal/cli reads their sources for a count written before a plural
// noun in any other way).
package words

import (
	"strconv"
	"strings"
)

// Count is n and noun, in the plural unless n is 1: "1 turn", "0 turns",
// "1,234 turns". A noun whose plural is not noun+"s" is given as
// "match|matches".
func Count[N ~int | ~int32 | ~int64 | ~uint32 | ~uint64](n N, noun string) string {
	one, many := forms(noun)
	if n == 1 {
		return "1 " + one
	}
	return Number(n) + " " + many
}

// Named is noun and the names, in the plural unless there is one name:
// "tool wordcount", "tools read, write", "no tools". noun is given as
// Count's is.
func Named(noun string, names []string) string {
	one, many := forms(noun)
	switch len(names) {
	case 0:
		return "no " + many
	case 1:
		return one + " " + names[0]
	}
	return many + " " + strings.Join(names, ", ")
}

// Number writes n with thousands separators: 1234567 is "1,234,567".
func Number[N ~int | ~int32 | ~int64 | ~uint32 | ~uint64](n N) string {
	var s string
	if n < 0 {
		s = strconv.FormatInt(int64(n), 10)
	} else {
		s = strconv.FormatUint(uint64(n), 10)
	}
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	if neg {
		s = "-" + s
	}
	return s
}

func forms(noun string) (one, many string) {
	one, many, ok := strings.Cut(noun, "|")
	if !ok {
		many = one + "s"
	}
	return one, many
}
