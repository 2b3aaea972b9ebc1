package jsonread

// NestedOver reports whether the JSON text b nests arrays and objects
// more than limit deep (brackets inside strings aside). It reads b once
// and decodes nothing, so it can judge a text before a decoder that
// would recurse into it (encoding/json takes 10,000 levels).
func NestedOver(b []byte, limit int) bool {
	depth := 0
	return structure(b, func(c byte) bool {
		switch c {
		case '{', '[':
			depth++
		case '}', ']':
			depth--
		}
		return depth > limit
	})
}

// Depth is how deep the JSON text b nests arrays and objects (0 for a
// scalar; brackets inside strings aside).
func Depth(b []byte) int {
	most, depth := 0, 0
	structure(b, func(c byte) bool {
		switch c {
		case '{', '[':
			depth++
			most = max(most, depth)
		case '}', ']':
			depth--
		}
		return false
	})
	return most
}

// CountObjects is the number of JSON objects in the JSON text b
// (braces inside strings aside).
func CountObjects(b []byte) int {
	n := 0
	structure(b, func(c byte) bool {
		if c == '{' {
			n++
		}
		return false
	})
	return n
}

// structure calls f with each bracket or brace of b outside strings, in
// order, until f returns true; it reports whether one did.
func structure(b []byte, f func(c byte) bool) bool {
	inString, escaped := false, false
	for _, c := range b {
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == '{' || c == '[' || c == '}' || c == ']':
			if f(c) {
				return true
			}
		}
	}
	return false
}
