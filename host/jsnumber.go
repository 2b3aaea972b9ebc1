package host

import (
	"math"
	"math/big"
	"strconv"
	"strings"
)

// JavaScript's number conversions, which pi's coercion uses (Number() and
// String()), written from ECMA-262: StringToNumber (7.1.4.1.1),
// Number::toString with radix 10 (6.1.6.1.20) and String.prototype.trim's
// white space (WhiteSpace and LineTerminator, 12.2 and 12.3). Go's own
// parsers accept other spellings ("1_000", "0x1p4", "inf") and Go's
// formatting uses other exponent thresholds, so neither is used directly on
// outside input. host/testdata/jsnumbers.jsonl, recorded by Node, pins them.

// isJSSpace reports whether r is in JavaScript's StrWhiteSpaceChar set.
func isJSSpace(r rune) bool {
	switch r {
	case '\t', '\v', '\f', ' ', 0xA0, 0xFEFF, // WhiteSpace
		'\n', '\r', 0x2028, 0x2029, // LineTerminator
		0x1680, 0x202F, 0x205F, 0x3000: // the rest of Zs
		return true
	}
	return r >= 0x2000 && r <= 0x200A // Zs
}

// jsTrim is String.prototype.trim.
func jsTrim(s string) string { return strings.TrimFunc(s, isJSSpace) }

// JSTrim is JavaScript's String.prototype.trim, for the doors that answer
// as pi does (a session name, the last answer's text).
func JSTrim(s string) string { return jsTrim(s) }

// jsStringToNumber is JavaScript's Number(string).
func jsStringToNumber(s string) float64 {
	s = jsTrim(s)
	if s == "" {
		return 0
	}
	if len(s) > 2 && s[0] == '0' {
		base := 0
		switch s[1] {
		case 'x', 'X':
			base = 16
		case 'o', 'O':
			base = 8
		case 'b', 'B':
			base = 2
		}
		if base != 0 {
			return nonDecimal(s[2:], base)
		}
	}
	sign, body := 1.0, s
	switch s[0] {
	case '+':
		body = s[1:]
	case '-':
		sign, body = -1, s[1:]
	}
	if body == "Infinity" {
		return sign * math.Inf(1)
	}
	if !isDecimalLiteral(body) {
		return math.NaN()
	}
	f, err := strconv.ParseFloat(body, 64)
	if err != nil && !isRangeErr(err) { // out of range: ±Inf or 0, as JS rounds
		return math.NaN()
	}
	return sign * f
}

// nonDecimal is the value of a NonDecimalIntegerLiteral's digits, rounded
// to the nearest double (ties to even), or NaN when a digit is not of the
// base.
func nonDecimal(digits string, base int) float64 {
	for i := 0; i < len(digits); i++ {
		if digitValue(digits[i]) >= base {
			return math.NaN()
		}
	}
	n, ok := new(big.Int).SetString(digits, base)
	if !ok {
		return math.NaN()
	}
	f, _ := new(big.Float).SetInt(n).Float64()
	return f
}

func digitValue(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'z':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'Z':
		return int(c-'A') + 10
	}
	return 99
}

// isDecimalLiteral reports whether s is a StrUnsignedDecimalLiteral other
// than Infinity: digits, an optional fraction, an optional exponent, at
// least one digit before the exponent, and nothing else.
func isDecimalLiteral(s string) bool {
	i, digits := 0, 0
	for i < len(s) && isDigit(s[i]) {
		i, digits = i+1, digits+1
	}
	if i < len(s) && s[i] == '.' {
		i++
		for i < len(s) && isDigit(s[i]) {
			i, digits = i+1, digits+1
		}
	}
	if digits == 0 {
		return false
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		start := i
		for i < len(s) && isDigit(s[i]) {
			i++
		}
		if i == start {
			return false
		}
	}
	return i == len(s)
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isRangeErr(err error) bool {
	ne, ok := err.(*strconv.NumError)
	return ok && ne.Err == strconv.ErrRange
}

// jsNumberToString is JavaScript's Number::toString(x, 10): the shortest
// digits that round-trip, in plain notation for exponents from -6 to 20 and
// in exponent notation ("1e+21", "1.5e-7") outside.
func jsNumberToString(x float64) string {
	switch {
	case math.IsNaN(x):
		return "NaN"
	case x == 0:
		return "0"
	case math.IsInf(x, 1):
		return "Infinity"
	case math.IsInf(x, -1):
		return "-Infinity"
	case x < 0:
		return "-" + jsNumberToString(-x)
	}
	// 'e' with precision -1 gives the shortest round-trip digits d.ddde±XX.
	e := strconv.FormatFloat(x, 'e', -1, 64)
	mant, exp, _ := strings.Cut(e, "e")
	digits := strings.Replace(mant, ".", "", 1)
	k := len(digits)
	p, _ := strconv.Atoi(exp)
	n := p + 1 // x = 0.digits × 10^n
	switch {
	case k <= n && n <= 21:
		return digits + strings.Repeat("0", n-k)
	case 0 < n && n <= 21:
		return digits[:n] + "." + digits[n:]
	case -6 < n && n <= 0:
		return "0." + strings.Repeat("0", -n) + digits
	}
	sign := "+"
	if n-1 < 0 {
		sign = "-"
	}
	out := digits[:1]
	if k > 1 {
		out += "." + digits[1:]
	}
	return out + "e" + sign + strconv.Itoa(abs(n-1))
}

func abs(i int) int {
	if i < 0 {
		return -i
	}
	return i
}

// jsonNumberValue is the double JSON.parse gives a JSON number: the nearest
// one, ±Infinity beyond the range. ok is false when n is not a number.
func jsonNumberValue(n string) (f float64, ok bool) {
	f, err := strconv.ParseFloat(n, 64)
	if err != nil && !isRangeErr(err) {
		return 0, false
	}
	return f, true
}
