package host

import (
	"encoding/json"
	"strconv"
)

// The JSON Schema validator compares numbers exactly, as big.Rat: the
// number's text is parsed into a fraction whose size grows with its digits
// and its exponent. 1e-9999999 (a double's 0) costs megabytes of digits,
// 1e-99999999 is refused by big.Rat, and the validator then dereferences a
// nil fraction and panics. So a number of a schema or of arguments whose
// text is long, or whose exponent is far beyond a double's range, is
// replaced by the text of the double it denotes, as JSON.parse gives it to
// pi: 1e-9999999 becomes 0. Every other number keeps its text exactly.
const (
	maxNumberText     = 400 // bytes of a number's text kept as written
	maxNumberExponent = 400 // |e| of a number's exponent kept as written
)

// boundedNumber is n, or the text of the double n denotes when n is too
// long or its exponent too far out for exact arithmetic (see above). ok is
// false when the double overflows.
func boundedNumber(n json.Number) (json.Number, bool) {
	if len(n) <= maxNumberText && exponentWithin(string(n), maxNumberExponent) {
		return n, true
	}
	f, err := strconv.ParseFloat(string(n), 64)
	if err != nil {
		return n, false
	}
	return json.Number(strconv.FormatFloat(f, 'g', -1, 64)), true
}

// exponentWithin reports whether the exponent written in the number s (0
// when there is none) is at most limit in magnitude. Leading zeros do not
// count; any other digit beyond the limit's width does.
func exponentWithin(s string, limit int) bool {
	i := 0
	for i < len(s) && s[i] != 'e' && s[i] != 'E' {
		i++
	}
	if i == len(s) {
		return true
	}
	i++
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	e := 0
	for ; i < len(s); i++ {
		e = e*10 + int(s[i]-'0')
		if e > limit {
			return false
		}
	}
	return true
}

// boundNumbers replaces, in place, every number of a decoded JSON value
// (json.Number leaves, as the schema decoder and decodeOrdered give them)
// by boundedNumber's. It returns the first number that overflows a double,
// or "".
func boundNumbers(v any) (any, json.Number) {
	switch x := v.(type) {
	case json.Number:
		b, ok := boundedNumber(x)
		if !ok {
			return v, x
		}
		return b, ""
	case map[string]any:
		for k, e := range x {
			b, bad := boundNumbers(e)
			if bad != "" {
				return v, bad
			}
			x[k] = b
		}
	case []any:
		for i, e := range x {
			b, bad := boundNumbers(e)
			if bad != "" {
				return v, bad
			}
			x[i] = b
		}
	}
	return v, ""
}
