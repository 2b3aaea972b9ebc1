package host

import (
	"errors"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// The "format" keyword, as pi-ai 0.73.1's validator (TypeBox 1.4) checks
// it (docs/loop.md 6.4.3): the formats TypeBox knows are asserted with
// its own rules, ported here; any other name passes, as in TypeBox, even
// where the Go validator knows one (semver, period). TypeBox's regular
// expressions are JavaScript's: \d is ASCII there as in Go's RE2, and
// where they are case-insensitive the two non-ASCII letters that Go's
// (?i) folds into ASCII (ſ and the Kelvin sign, which JavaScript's /i
// without /u does not) are kept from matching (foldSafe).
//
// Ported exactly: date, time, date-time, duration, email, ipv4, ipv6,
// uri, uri-reference, uri-template, uuid, json-pointer,
// relative-json-pointer, and the ASCII labels of hostname. Approximated:
// url, iri and iri-reference (WHATWG URL parsing, here Go's net/url),
// idn-email (without NFC normalisation), idn-hostname and punycode labels
// of hostname (letters, marks, digits and hyphens, where TypeBox checks
// RFC 5892's tables, bidi and contextual rules), regex (a valid RE2
// expression, as jsRegexp translates it, where TypeBox compiles a
// JavaScript one).

// TypeBox's own expressions, as its sources write them (their JavaScript
// syntax is RE2's too; /i is (?i)).
var (
	fmtDate     = lazyRegexp("^(\\d\\d\\d\\d)-(\\d\\d)-(\\d\\d)$")
	fmtTime     = lazyRegexp("^(\\d\\d):(\\d\\d):(\\d\\d)(?:\\.\\d+)?(?:([Zz])|([+-])(\\d\\d):(\\d\\d))?$")
	fmtDuration = lazyRegexp("^P((\\d+Y(\\d+M(\\d+D)?)?|\\d+M(\\d+D)?|\\d+D)(T(\\d+H(\\d+M(\\d+S)?)?|\\d+M(\\d+S)?|\\d+S))?|T(\\d+H(\\d+M(\\d+S)?)?|\\d+M(\\d+S)?|\\d+S)|\\d+W)$")
	fmtEmail    = lazyRegexp("(?i)^(?:[a-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\\.[a-z0-9!#$%&'*+/=?^_`{|}~-]+)*|\"(?:[^\"\\\\]|\\\\[\\x20-\\x7e])*\")@(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*|\\[(?:IPv6:[a-f0-9:]+|(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])(?:\\.(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])){3})\\])$")
	fmtIPv4     = lazyRegexp("^(?:(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)\\.){3}(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)$")
	fmtIPv6     = lazyRegexp("(?i)^(?:(?:(?:[0-9a-f]{1,4}:){6}|::(?:[0-9a-f]{1,4}:){5}|(?:[0-9a-f]{1,4})?::(?:[0-9a-f]{1,4}:){4}|(?:(?:[0-9a-f]{1,4}:)?[0-9a-f]{1,4})?::(?:[0-9a-f]{1,4}:){3}|(?:(?:[0-9a-f]{1,4}:){0,2}[0-9a-f]{1,4})?::(?:[0-9a-f]{1,4}:){2}|(?:(?:[0-9a-f]{1,4}:){0,3}[0-9a-f]{1,4})?::[0-9a-f]{1,4}:|(?:(?:[0-9a-f]{1,4}:){0,4}[0-9a-f]{1,4})?::)(?:[0-9a-f]{1,4}:[0-9a-f]{1,4}|(?:(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)\\.){3}(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d))|(?:(?:[0-9a-f]{1,4}:){0,5}[0-9a-f]{1,4})?::[0-9a-f]{1,4}|(?:(?:[0-9a-f]{1,4}:){0,6}[0-9a-f]{1,4})?::)$")
	fmtURI      = lazyRegexp("(?i)^[a-z][a-z0-9+\\-.]*:(?:\\/\\/(?:(?:[-a-z0-9._~!$&'()*+,;=:]|%[0-9a-f]{2})*@)?(?:\\[(?:(?:(?:[\\da-f]{1,4}:){6}(?:[\\da-f]{1,4}:[\\da-f]{1,4}|(?:(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)\\.){3}(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d))|::(?:[\\da-f]{1,4}:){5}(?:[\\da-f]{1,4}:[\\da-f]{1,4}|(?:(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)\\.){3}(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d))|(?:[\\da-f]{1,4})?::(?:[\\da-f]{1,4}:){4}(?:[\\da-f]{1,4}:[\\da-f]{1,4}|(?:(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)\\.){3}(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d))|(?:(?:[\\da-f]{1,4}:){0,1}[\\da-f]{1,4})?::(?:[\\da-f]{1,4}:){3}(?:[\\da-f]{1,4}:[\\da-f]{1,4}|(?:(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)\\.){3}(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d))|(?:(?:[\\da-f]{1,4}:){0,2}[\\da-f]{1,4})?::(?:[\\da-f]{1,4}:){2}(?:[\\da-f]{1,4}:[\\da-f]{1,4}|(?:(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)\\.){3}(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d))|(?:(?:[\\da-f]{1,4}:){0,3}[\\da-f]{1,4})?::[\\da-f]{1,4}:(?:[\\da-f]{1,4}:[\\da-f]{1,4}|(?:(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)\\.){3}(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d))|(?:(?:[\\da-f]{1,4}:){0,4}[\\da-f]{1,4})?::(?:[\\da-f]{1,4}:[\\da-f]{1,4}|(?:(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)\\.){3}(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d))|(?:(?:[\\da-f]{1,4}:){0,5}[\\da-f]{1,4})?::[\\da-f]{1,4}|(?:(?:[\\da-f]{1,4}:){0,6}[\\da-f]{1,4})?::)|v[0-9a-f]+\\.[-a-z0-9._~!$&'()*+,;=:]+)\\]|(?:(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)\\.){3}(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)|(?:[-a-z0-9._~!$&'()*+,;=]|%[0-9a-f]{2})*)(?::\\d*)?(?:\\/(?:[-a-z0-9._~!$&'()*+,;=:@]|%[0-9a-f]{2})*)*|\\/(?:(?:[-a-z0-9._~!$&'()*+,;=:@]|%[0-9a-f]{2})+(?:\\/(?:[-a-z0-9._~!$&'()*+,;=:@]|%[0-9a-f]{2})*)*)?|(?:[-a-z0-9._~!$&'()*+,;=:@]|%[0-9a-f]{2})+(?:\\/(?:[-a-z0-9._~!$&'()*+,;=:@]|%[0-9a-f]{2})*)*)?(?:\\?(?:[-a-z0-9._~!$&'()*+,;=:@/?]|%[0-9a-f]{2})*)?(?:#(?:[-a-z0-9._~!$&'()*+,;=:@/?]|%[0-9a-f]{2})*)?$")
	fmtURIRef   = lazyRegexp("(?i)^(?:[a-z][a-z0-9+\\-.]*:(?:\\/\\/(?:(?:[-a-z0-9._~!$&'()*+,;=:]|%[0-9a-f]{2})*@)?(?:\\[(?:(?:(?:[\\da-f]{1,4}:){6}(?:[\\da-f]{1,4}:[\\da-f]{1,4}|(?:(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)\\.){3}(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d))|::(?:[\\da-f]{1,4}:){5}(?:[\\da-f]{1,4}:[\\da-f]{1,4}|(?:(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)\\.){3}(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d))|(?:[\\da-f]{1,4})?::(?:[\\da-f]{1,4}:){4}(?:[\\da-f]{1,4}:[\\da-f]{1,4}|(?:(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)\\.){3}(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d))|(?:(?:[\\da-f]{1,4}:){0,1}[\\da-f]{1,4})?::(?:[\\da-f]{1,4}:){3}(?:[\\da-f]{1,4}:[\\da-f]{1,4}|(?:(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)\\.){3}(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d))|(?:(?:[\\da-f]{1,4}:){0,2}[\\da-f]{1,4})?::(?:[\\da-f]{1,4}:){2}(?:[\\da-f]{1,4}:[\\da-f]{1,4}|(?:(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)\\.){3}(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d))|(?:(?:[\\da-f]{1,4}:){0,3}[\\da-f]{1,4})?::[\\da-f]{1,4}:(?:[\\da-f]{1,4}:[\\da-f]{1,4}|(?:(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)\\.){3}(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d))|(?:(?:[\\da-f]{1,4}:){0,4}[\\da-f]{1,4})?::(?:[\\da-f]{1,4}:[\\da-f]{1,4}|(?:(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)\\.){3}(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d))|(?:(?:[\\da-f]{1,4}:){0,5}[\\da-f]{1,4})?::[\\da-f]{1,4}|(?:(?:[\\da-f]{1,4}:){0,6}[\\da-f]{1,4})?::)|v[0-9a-f]+\\.[-a-z0-9._~!$&'()*+,;=:]+)\\]|(?:(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)\\.){3}(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)|(?:[-a-z0-9._~!$&'()*+,;=]|%[0-9a-f]{2})*)(?::\\d*)?(?:\\/(?:[-a-z0-9._~!$&'()*+,;=:@]|%[0-9a-f]{2})*)*|\\/(?:(?:[-a-z0-9._~!$&'()*+,;=:@]|%[0-9a-f]{2})+(?:\\/(?:[-a-z0-9._~!$&'()*+,;=:@]|%[0-9a-f]{2})*)*)?|(?:[-a-z0-9._~!$&'()*+,;=:@]|%[0-9a-f]{2})+(?:\\/(?:[-a-z0-9._~!$&'()*+,;=:@]|%[0-9a-f]{2})*)*)?|(?:\\/\\/(?:(?:[-a-z0-9._~!$&'()*+,;=:]|%[0-9a-f]{2})*@)?(?:\\[(?:(?:(?:[\\da-f]{1,4}:){6}(?:[\\da-f]{1,4}:[\\da-f]{1,4}|(?:(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)\\.){3}(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d))|::(?:[\\da-f]{1,4}:){5}(?:[\\da-f]{1,4}:[\\da-f]{1,4}|(?:(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)\\.){3}(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d))|(?:[\\da-f]{1,4})?::(?:[\\da-f]{1,4}:){4}(?:[\\da-f]{1,4}:[\\da-f]{1,4}|(?:(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)\\.){3}(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d))|(?:(?:[\\da-f]{1,4}:){0,1}[\\da-f]{1,4})?::(?:[\\da-f]{1,4}:){3}(?:[\\da-f]{1,4}:[\\da-f]{1,4}|(?:(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)\\.){3}(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d))|(?:(?:[\\da-f]{1,4}:){0,2}[\\da-f]{1,4})?::(?:[\\da-f]{1,4}:){2}(?:[\\da-f]{1,4}:[\\da-f]{1,4}|(?:(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)\\.){3}(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d))|(?:(?:[\\da-f]{1,4}:){0,3}[\\da-f]{1,4})?::[\\da-f]{1,4}:(?:[\\da-f]{1,4}:[\\da-f]{1,4}|(?:(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)\\.){3}(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d))|(?:(?:[\\da-f]{1,4}:){0,4}[\\da-f]{1,4})?::(?:[\\da-f]{1,4}:[\\da-f]{1,4}|(?:(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)\\.){3}(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d))|(?:(?:[\\da-f]{1,4}:){0,5}[\\da-f]{1,4})?::[\\da-f]{1,4}|(?:(?:[\\da-f]{1,4}:){0,6}[\\da-f]{1,4})?::)|v[0-9a-f]+\\.[-a-z0-9._~!$&'()*+,;=:]+)\\]|(?:(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)\\.){3}(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)|(?:[-a-z0-9._~!$&'()*+,;=]|%[0-9a-f]{2})*)(?::\\d*)?(?:\\/(?:[-a-z0-9._~!$&'()*+,;=:@]|%[0-9a-f]{2})*)*|\\/(?:(?:[-a-z0-9._~!$&'()*+,;=:@]|%[0-9a-f]{2})+(?:\\/(?:[-a-z0-9._~!$&'()*+,;=:@]|%[0-9a-f]{2})*)*)?|(?:[-a-z0-9._~!$&'()*+,;=@]|%[0-9a-f]{2})+(?:\\/(?:[-a-z0-9._~!$&'()*+,;=:@]|%[0-9a-f]{2})*)*)?)(?:\\?(?:[-a-z0-9._~!$&'()*+,;=:@/?]|%[0-9a-f]{2})*)?(?:#(?:[-a-z0-9._~!$&'()*+,;=:@/?]|%[0-9a-f]{2})*)?$")
	fmtUUID     = lazyRegexp("(?i)^[0-9a-f]{8}-(?:[0-9a-f]{4}-){3}[0-9a-f]{12}$")
	fmtPointer  = lazyRegexp("^(?:\\/(?:[^~/]|~0|~1)*)*$")
	fmtRelPtr   = lazyRegexp("^(?:0|[1-9][0-9]*)(?:#|(?:\\/(?:[^~/]|~0|~1)*)*)$")
	fmtTemplate = lazyRegexp("(?i)^(?:(?:[^\\x00-\\x20\"<>%\\\\^`{|}\\x7f]|%[0-9a-f]{2})|\\{[+#./;?&=,!@|]?(?:[a-z0-9_]|%[0-9a-f]{2})+(?:\\.(?:[a-z0-9_]|%[0-9a-f]{2})+)*(?::[1-9]\\d{0,3}|\\*)?(?:,(?:[a-z0-9_]|%[0-9a-f]{2})+(?:\\.(?:[a-z0-9_]|%[0-9a-f]{2})+)*(?::[1-9]\\d{0,3}|\\*)?)*\\})*$")
	fmtPtrFrag  = lazyRegexp("(?i)^#(?:\\/(?:[a-z0-9_\\-.!$&'()*+,;:=@]|%[0-9a-f]{2}|~0|~1)*)*$")
	fmtSuffix   = lazyRegexp(`^(?:\[!?([A-Za-z._][A-Za-z._0-9+-]{0,13}(?:/[A-Za-z._][A-Za-z._0-9+-]{0,13})*|[+-](?:[01][0-9]|2[0-3]):[0-5][0-9])\](?:\[!?[a-z_][a-z_0-9-]*=[A-Za-z0-9]+(?:-[A-Za-z0-9]+)*\])*|(?:\[!?[a-z_][a-z_0-9-]*=[A-Za-z0-9]+(?:-[A-Za-z0-9]+)*\])*)$`)
	fmtIdnLocal = lazyRegexp(`^(?:[A-Za-z0-9!#$%&'*+/=?^_` + "`" + `{|}~\x{80}-\x{10FFFF}-]+(?:\.[A-Za-z0-9!#$%&'*+/=?^_` + "`" + `{|}~\x{80}-\x{10FFFF}-]+)*|"(?:[^"\\]|\\.)*")$`)
	fmtIdnLabel = lazyRegexp(`^[\pL\pN][\pL\pN-]{0,62}$`)
	fmtIRIBad   = lazyRegexp(`[\x00-\x20<>\^` + "`" + `{|}\\]|%(?:[^0-9a-fA-F]|.[^0-9a-fA-F]|.?$)`)
	fmtIRIRefBd = lazyRegexp(`[\x00-\x20\x7F\\]|%(?:[^0-9a-fA-F]|.[^0-9a-fA-F]|.?$)`)
	fmtBadSchem = lazyRegexp(`^[a-zA-Z][a-zA-Z0-9+\-.]*//`)
)

// lazyRegexp compiles src when first used: the formats' expressions
// take some milliseconds to compile, which a process that validates
// nothing (most commands) should not pay at start.
func lazyRegexp(src string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(src) })
}

// typeboxFormats are the formats TypeBox 1.4 checks, by name.
var typeboxFormats = map[string]func(string) bool{
	"date":                      isDate,
	"time":                      func(s string) bool { return isTime(s) },
	"date-time":                 isDateTime,
	"duration":                  func(s string) bool { return fmtDuration().MatchString(s) },
	"email":                     func(s string) bool { return fmtEmail().MatchString(foldSafe(s)) },
	"hostname":                  isHostname,
	"idn-email":                 isIdnEmail,
	"idn-hostname":              isIdnHostname,
	"ipv4":                      func(s string) bool { return fmtIPv4().MatchString(s) },
	"ipv6":                      func(s string) bool { return fmtIPv6().MatchString(foldSafe(s)) },
	"iri":                       func(s string) bool { return !fmtIRIBad().MatchString(s) && canParseURL(s) },
	"iri-reference":             isIriReference,
	"json-pointer":              func(s string) bool { return fmtPointer().MatchString(s) },
	"json-pointer-uri-fragment": func(s string) bool { return fmtPtrFrag().MatchString(foldSafe(s)) },
	"relative-json-pointer":     func(s string) bool { return fmtRelPtr().MatchString(s) },
	"uri":                       func(s string) bool { return fmtURI().MatchString(foldSafe(s)) },
	"uri-reference":             func(s string) bool { return fmtURIRef().MatchString(foldSafe(s)) },
	"uri-template":              func(s string) bool { return fmtTemplate().MatchString(foldSafe(s)) },
	"url":                       canParseURL,
	"uuid":                      func(s string) bool { return fmtUUID().MatchString(foldSafe(s)) },
}

// goOnlyFormats are the formats the Go validator knows and TypeBox does
// not: they pass, as in TypeBox.
var goOnlyFormats = []string{"period", "semver"}

// registerFormats makes c check formats as TypeBox does ("regex" stays
// the compiler's own: a valid RE2 expression).
func registerFormats(c *jsonschema.Compiler) {
	c.AssertFormat()
	for name, f := range typeboxFormats {
		c.RegisterFormat(&jsonschema.Format{Name: name, Validate: formatCheck(name, f)})
	}
	for _, name := range goOnlyFormats {
		c.RegisterFormat(&jsonschema.Format{Name: name, Validate: func(any) error { return nil }})
	}
}

func formatCheck(name string, f func(string) bool) func(any) error {
	return func(v any) error {
		s, ok := v.(string)
		if !ok || f(s) {
			return nil
		}
		return errors.New("must match format " + strconv.Quote(name))
	}
}

// foldSafe keeps the two non-ASCII letters that Go's (?i) folds into
// ASCII (ſ into s, the Kelvin sign into k) from matching ASCII letters,
// as in JavaScript's /i without /u: é matches what they match there.
func foldSafe(s string) string {
	if !strings.ContainsAny(s, "\u017f\u212a") {
		return s
	}
	return strings.NewReplacer("\u017f", "é", "\u212a", "é").Replace(s)
}

var monthDays = [13]int{0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31}

func isDate(s string) bool {
	m := fmtDate().FindStringSubmatch(s)
	if m == nil {
		return false
	}
	year, _ := strconv.Atoi(m[1])
	month, _ := strconv.Atoi(m[2])
	day, _ := strconv.Atoi(m[3])
	if month < 1 || month > 12 || day < 1 {
		return false
	}
	if month == 2 && year%4 == 0 && (year%100 != 0 || year%400 == 0) {
		return day <= 29
	}
	return day <= monthDays[month]
}

func isTime(s string) bool {
	m := fmtTime().FindStringSubmatch(s)
	if m == nil || (m[4] == "" && m[5] == "") {
		return false
	}
	hr, _ := strconv.Atoi(m[1])
	mins, _ := strconv.Atoi(m[2])
	sec, _ := strconv.Atoi(m[3])
	if hr > 23 || mins > 59 || sec > 60 {
		return false
	}
	tzH, _ := strconv.Atoi(m[6])
	tzM, _ := strconv.Atoi(m[7])
	if m[5] != "" && (tzH > 23 || tzM > 59) {
		return false
	}
	if sec < 60 {
		return true
	}
	sign := 1
	if m[5] == "-" {
		sign = -1
	}
	utc := hr*60 + mins - sign*(tzH*60+tzM)
	return (utc%1440+1440)%1440 == 1439
}

func isDateTime(s string) bool {
	dt := s
	if i := strings.IndexByte(s, '['); i >= 0 {
		dt = s[:i]
		m := fmtSuffix().FindStringSubmatch(s[i:])
		if m == nil {
			return false
		}
		for _, seg := range strings.Split(m[1], "/") { // TypeBox's (?!\.{1,2}[/\]]): no "." or ".." zone segment
			if seg == "." || seg == ".." {
				return false
			}
		}
	}
	if strings.Count(dt, "T")+strings.Count(dt, "t") != 1 { // split(/T/i) in two
		return false
	}
	i := strings.IndexAny(dt, "Tt")
	return isDate(dt[:i]) && isTime(dt[i+1:])
}

// isHostname is TypeBox's: at most 253 UTF-16 units, no final dot, and
// every label 1 to 63 units, either letters, digits and inner hyphens
// (not "--" at the third and fourth places) or a punycode label.
func isHostname(s string) bool {
	if s == "" || utf16Len(s) > 253 || strings.HasSuffix(s, ".") {
		return false
	}
	for _, label := range strings.Split(s, ".") {
		if n := utf16Len(label); n == 0 || n > 63 {
			return false
		}
		if !isPunyLabel(label) && !isASCIILabel(label) {
			return false
		}
	}
	return true
}

func isASCIILabel(l string) bool {
	for _, r := range l {
		if !(r < 128 && (r == '-' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z')) {
			return false
		}
	}
	if strings.HasPrefix(l, "-") || strings.HasSuffix(l, "-") {
		return false
	}
	return !(len(l) >= 4 && l[2:4] == "--")
}

func isPunyLabel(l string) bool {
	if !strings.HasPrefix(strings.ToLower(l), "xn--") {
		return false
	}
	body := strings.ToLower(l[4:])
	if strings.LastIndexByte(body, '-') == 0 {
		return false
	}
	u, ok := punycodeDecode(body)
	return ok && hasNonASCII(u) && isUnicodeLabel(u)
}

// isUnicodeLabel approximates TypeBox's IsUnicodeLabel (RFC 5891/5892):
// letters, marks, digits and hyphens, not starting with a mark, no hyphen
// at either end, and no "--" at the third and fourth places.
func isUnicodeLabel(l string) bool {
	rs := []rune(l)
	if len(rs) == 0 || rs[0] == '-' || rs[len(rs)-1] == '-' || unicode.IsMark(rs[0]) {
		return false
	}
	if len(rs) >= 4 && rs[2] == '-' && rs[3] == '-' {
		return false
	}
	for _, r := range rs {
		if !(r == '-' || unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r)) || unicode.IsUpper(r) {
			return false
		}
	}
	return true
}

// punycodeDecode is RFC 3492's decoding of a label's body (after "xn--").
func punycodeDecode(s string) (string, bool) {
	const base, tMin, tMax, skew, damp = 36, 1, 26, 38, 700
	var out []rune
	if i := strings.LastIndexByte(s, '-'); i >= 0 {
		for _, r := range s[:i] {
			if r >= 0x80 {
				return "", false
			}
			out = append(out, r)
		}
		s = s[i+1:]
	}
	n, bias, i := 128, 72, 0
	for pos := 0; pos < len(s); {
		oldi, w := i, 1
		for k := base; ; k += base {
			if pos >= len(s) {
				return "", false
			}
			c := s[pos]
			pos++
			var digit int
			switch {
			case c >= 'a' && c <= 'z':
				digit = int(c - 'a')
			case c >= '0' && c <= '9':
				digit = int(c-'0') + 26
			default:
				return "", false
			}
			if digit > (1<<31-1-i)/w {
				return "", false
			}
			i += digit * w
			t := k - bias
			if t < tMin {
				t = tMin
			} else if t > tMax {
				t = tMax
			}
			if digit < t {
				break
			}
			w *= base - t
			if w > 1<<31-1 {
				return "", false
			}
		}
		// adapt
		delta := i - oldi
		if oldi == 0 {
			delta /= damp
		} else {
			delta /= 2
		}
		delta += delta / (len(out) + 1)
		k := 0
		for delta > ((base-tMin)*tMax)/2 {
			delta /= base - tMin
			k += base
		}
		bias = k + (base-tMin+1)*delta/(delta+skew)
		n += i / (len(out) + 1)
		i %= len(out) + 1
		if n > utf8.MaxRune || (n >= 0xD800 && n < 0xE000) {
			return "", false
		}
		out = append(out[:i], append([]rune{rune(n)}, out[i:]...)...)
		i++
	}
	return string(out), true
}

// isIdnHostname approximates TypeBox's: no space, at most 253 units,
// every label (after the full stops U+3002, U+FF0E and U+FF61) 1 to 63
// units, each a punycode label or a Unicode one (isUnicodeLabel).
func isIdnHostname(s string) bool {
	if s == "" || strings.Contains(s, " ") {
		return false
	}
	norm := strings.NewReplacer("\u3002", ".", "\uff0e", ".", "\uff61", ".").Replace(s)
	if utf16Len(norm) > 253 {
		return false
	}
	for _, label := range strings.Split(norm, ".") {
		if n := utf16Len(label); n == 0 || n > 63 || !(isPunyLabel(label) || isUnicodeLabel(label)) {
			return false
		}
	}
	return true
}

func isIdnEmail(s string) bool {
	at := strings.LastIndexByte(s, '@')
	if at < 0 || !fmtIdnLocal().MatchString(s[:at]) {
		return false
	}
	for _, label := range strings.Split(s[at+1:], ".") {
		if !fmtIdnLabel().MatchString(label) || strings.HasSuffix(label, "-") {
			return false
		}
	}
	return true
}

func isIriReference(s string) bool {
	if fmtIRIRefBd().MatchString(s) || fmtBadSchem().MatchString(s) {
		return false
	}
	_, err := url.Parse(s)
	return err == nil
}

// canParseURL approximates WHATWG's URL.canParse: a scheme, and for the
// special schemes a host.
func canParseURL(s string) bool {
	u, err := url.Parse(strings.TrimFunc(s, func(r rune) bool { return r <= ' ' }))
	if err != nil || u.Scheme == "" {
		return false
	}
	switch strings.ToLower(u.Scheme) {
	case "http", "https", "ws", "wss", "ftp":
		return u.Host != ""
	}
	return true
}

func hasNonASCII(s string) bool {
	for _, r := range s {
		if r > unicode.MaxASCII {
			return true
		}
	}
	return false
}

func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		n++
		if r > 0xFFFF {
			n++
		}
	}
	return n
}
