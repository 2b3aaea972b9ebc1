// Package jsonquote writes Go strings as JSON strings, byte for byte as
// encoding/json writes them, without its Encoder's cost of an interface
// and a call a string: the host's encoder of tool-call arguments and the
// SDK's encoder of results both write every string through it.
package jsonquote

import "unicode/utf8"

// Append appends s to dst as a JSON string, as encoding/json writes it:
// the quote, the backslash and the control characters escaped (\b \f \n
// \r \t short, the others \u00XX), each byte of invalid UTF-8 as \ufffd,
// U+2028 and U+2029 escaped, and, when html is true (json.Marshal's
// default), <, > and & as \u003c, \u003e and \u0026. Runs of plain ASCII
// are copied whole.
func Append(dst []byte, s string, html bool) []byte {
	const hex = "0123456789abcdef"
	safe := &plain
	if html {
		safe = &plainHTML
	}
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		b := s[i]
		if b < utf8.RuneSelf {
			if safe[b] {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch b {
			case '\\', '"':
				dst = append(dst, '\\', b)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hex[b>>4], hex[b&0xF])
			}
			i++
			start = i
			continue
		}
		c, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case c == utf8.RuneError && size == 1:
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
		case c == '\u2028' || c == '\u2029':
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hex[c&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// plain and plainHTML say which ASCII bytes a JSON string holds as they
// are, without and with HTML escaping.
var plain, plainHTML = func() (t, h [utf8.RuneSelf]bool) {
	for b := 0x20; b < utf8.RuneSelf; b++ {
		t[b] = b != '"' && b != '\\'
		h[b] = t[b] && b != '<' && b != '>' && b != '&'
	}
	return t, h
}()
