package cli

import "strings"

// The words of a message that counts or lists things agree with the
// count: "1 tool", "2 tools", "tool wordcount", "tools read, write". A
// message never writes a count before a plural noun itself ("%d tools"),
// it says plural(n, "tool") (TestCountsAgree reads every message of the
// command for that).

// plural is n and word, in the plural unless n is 1: "1 turn", "1,234
// turns". A word whose plural is not word+"s" is given as "match|matches".
func plural(n int, word string) string {
	one, many, ok := strings.Cut(word, "|")
	if !ok {
		many = one + "s"
	}
	if n == 1 {
		return "1 " + one
	}
	return count(n) + " " + many
}

// named is word and the names, in the plural unless there is one name:
// "tool wordcount", "tools read, write", "no tools". word is given as
// plural's is.
func named(word string, names []string) string {
	one, many, ok := strings.Cut(word, "|")
	if !ok {
		many = one + "s"
	}
	switch len(names) {
	case 0:
		return "no " + many
	case 1:
		return one + " " + names[0]
	}
	return many + " " + strings.Join(names, ", ")
}
