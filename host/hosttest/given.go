package hosttest

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// Given generates what reaches wasmagent from outside as JSON (a client,
// a session file, a tool) in the shapes pi passes on untouched: a user
// message whose content is a string, members no type declares (of every
// JSON type), members absent, timestamps that are not integers, an
// empty errorMessage, usage with more or fewer fields, custom roles. The
// generated differentials with pi draw from it (host, host/session).
type Given struct {
	R *rand.Rand
	// Odd adds the shapes only a file or a client writes, which pi keeps
	// as they are though no type of pi-ai's has them: content blocks that
	// are not objects, that have no type, or whose members are not of
	// their type's kinds (a text that is a number).
	Odd bool
	// Spelled adds values JSON.stringify writes otherwise than given
	// (SpelledValues), as a file written by hand or another program
	// has them, and pi writes back in its own spelling.
	Spelled bool
}

// UnknownBlocks are content blocks of types pi-ai does not have (a newer
// pi's, an extension's), which pi passes on untouched. Each has a "data"
// string: pi-ai's faux provider, which the loop's differential runs,
// reads any block it does not know as an image and fails on one without.
var UnknownBlocks = []string{`{"type":"audio","data":"aGk=","mimeType":"audio/wav"}`, `{"type":"file","data":"eA==","mimeType":"text/plain","name":"a.txt","n":[1,{"k":null}]}`}

// OddBlocks are content blocks no type of pi-ai's can hold, or of a type
// it does not know without data (Given.Odd).
var OddBlocks = []string{`{"type":"note","text":"aside"}`, `{"type":"x-future"}`, `{"type":"text","text":5}`, `{"type":"text"}`, `{"text":"no type"}`, `{"type":7,"text":"x"}`, `7`, `"s"`, `null`, `[]`, `{"type":"toolCall","id":1,"name":"echo","arguments":{}}`, `{"type":"image","data":null,"mimeType":"image/png"}`}

// JSONValues are JSON values of every type that JavaScript's JSON.parse
// and JSON.stringify give back unchanged (no 1.0, no exponents, no
// escapes), so a value means the same on both sides.
var JSONValues = []string{`{"k":1}`, `[1,2]`, `"s"`, `0`, `{}`, `true`, `{"nested":{"a":[true,null]},"b":"x"}`, `[]`, `"é ü"`, `null`, `-2.5`}

// SpelledValues are JSON values that JSON.stringify writes otherwise
// than they are given: numbers (1.0, exponents, -0, past 2^53, past a
// double's range), escapes (HTML, \/, a lone surrogate), U+2028 as it
// is, white space, an object's index keys after others, a key twice.
var SpelledValues = []string{`1.0`, `1e21`, `1E2`, `-0`, `1.5e-7`, `0.0000001`, `9007199254740993`, `1e400`, `"\u003cb\u003e \u0026"`, "\"a\u2028b\"", `"\ud800 lone"`, `"\/"`, `"\u00e9\u00E9"`,
	`{"b":1,"0":2,"1":3}`, `{ "k" : [ 1 , 2 ] }`, `{"a":1,"a":2}`, `[1.50,{"x":-0.0}]`}

// value is one of JSONValues, or with Spelled, now and then one of
// SpelledValues.
func (g Given) value() string {
	if g.Spelled && g.chance(3) {
		return g.Pick(SpelledValues)
	}
	return g.Pick(JSONValues)
}

// Texts are texts of messages and results (in the Basic Multilingual
// Plane: pi's faux provider chunks UTF-16 units, ours runes).
var Texts = []string{"ok", "", "done with é", "multi\nline text", "中文 text longer than four chars", "a", "The answer is 42."}

// ExtraNames are names of members no type declares: none is a message's
// field nor a tool result's (content, details, terminate), and none an
// array index (which JavaScript orders first).
var ExtraNames = []string{"meta", "isError", "score", "tags", "note", "flag", "empty", "é", "x-trace"}

// Timestamps are timestamps a given message may have ("" is none at
// all); none is a clock's (2001 or later), which the differentials tell
// apart from the ones the run stamps.
var Timestamps = []string{"", `1`, `7`, `0`, `1.5`, `-3`, `"2025-01-01T00:00:00.000Z"`, `null`}

// ZeroUsage is pi-ai's usage of a message that used nothing.
const ZeroUsage = `{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"totalTokens":0,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}}`

func (g Given) chance(n int) bool { return g.R.IntN(n) == 0 }

// Pick returns one of xs.
func (g Given) Pick(xs []string) string { return xs[g.R.IntN(len(xs))] }

// ExtraMembers returns one to three members of ExtraNames with values of
// JSONValues, as the inside of an object: each with a leading comma.
func (g Given) ExtraMembers() string {
	var b strings.Builder
	seen := map[string]bool{}
	for range 1 + g.R.IntN(3) {
		name := g.Pick(ExtraNames)
		if seen[name] {
			continue
		}
		seen[name] = true
		fmt.Fprintf(&b, ",%q:%s", name, g.value())
	}
	return b.String()
}

// ExtraObject is ExtraMembers as a JSON object.
func (g Given) ExtraObject() string { return "{" + g.ExtraMembers()[1:] + "}" }

// Message is a message as JSON, its texts starting with prefix: mostly a
// user message, else an assistant message (with no tool call), a result
// of call toolCallID of echo, or a message of one of pi-coding-agent's
// custom roles.
func (g Given) Message(prefix, toolCallID string) string {
	var members []string
	add := func(name, value string) {
		if value != "" {
			members = append(members, fmt.Sprintf("%q:%s", name, value))
		}
	}
	text := func() string { return fmt.Sprintf("%q", prefix+g.Pick(Texts)) }
	switch g.R.IntN(8) {
	case 0:
		add("role", `"assistant"`)
		add("content", g.blocks(text, true))
		for _, k := range []string{"api", "provider", "model"} {
			if !g.chance(4) {
				add(k, g.Pick([]string{`"faux"`, `"other"`, `""`}))
			}
		}
		add("usage", g.Pick([]string{"", ZeroUsage, ZeroUsage, `{"input":1,"output":2,"cacheRead":0,"cacheWrite":0,"totalTokens":3,"cost":{"input":0.5,"output":0,"cacheRead":0,"cacheWrite":0,"total":0.5},"reasoning":4}`, `{"input":1}`}))
		add("stopReason", g.Pick([]string{`"stop"`, `"length"`, `"stop"`}))
		if g.chance(3) {
			add("errorMessage", g.Pick([]string{`""`, `"it broke"`}))
		}
		if g.chance(4) {
			add("responseId", `"resp-9"`)
		}
	case 1:
		add("role", `"toolResult"`)
		add("toolCallId", fmt.Sprintf("%q", toolCallID))
		add("toolName", `"echo"`)
		// An array, as pi-ai's type says: a string breaks pi-ai's
		// providers (the faux one throws on it), not a shape pi passes on.
		add("content", g.blocks(text, false))
		if g.chance(2) {
			add("details", g.value())
		}
		if !g.chance(5) {
			add("isError", g.Pick([]string{"false", "true"}))
		}
	case 2:
		add("role", g.Pick([]string{`"custom"`, `"bashExecution"`, `"branchSummary"`}))
		add("content", text())
		add("display", "true")
	default:
		add("role", `"user"`)
		switch {
		case g.Odd && g.chance(10):
			add("content", g.Pick([]string{`5`, `{"type":"text","text":"an object"}`, `true`, `null`}))
		case g.chance(2):
			add("content", text())
		default:
			add("content", g.blocks(text, false))
		}
	}
	add("timestamp", g.Pick(Timestamps))
	obj := "{" + strings.Join(members, ",")
	if g.chance(3) {
		obj += g.ExtraMembers()
	}
	return obj + "}"
}

// blocks is a content array: none to two text blocks (now and then with
// a member no block type declares), an image, and (for an assistant
// message) thinking.
func (g Given) blocks(text func() string, assistant bool) string {
	var bs []string
	if assistant && g.chance(3) {
		bs = append(bs, fmt.Sprintf(`{"type":"thinking","thinking":%s}`, text()))
	}
	for range g.R.IntN(3) {
		b := `{"type":"text","text":` + text()
		if g.chance(5) {
			b += g.ExtraMembers()
		}
		bs = append(bs, b+"}")
	}
	if !assistant && g.chance(5) {
		bs = append(bs, `{"type":"image","data":"aGk=","mimeType":"image/png"}`)
	}
	if g.chance(6) {
		at := g.R.IntN(len(bs) + 1)
		bs = append(bs[:at], append([]string{g.Pick(UnknownBlocks)}, bs[at:]...)...)
	}
	if g.Odd && g.chance(4) {
		at := g.R.IntN(len(bs) + 1)
		bs = append(bs[:at], append([]string{g.Pick(OddBlocks)}, bs[at:]...)...)
	}
	return "[" + strings.Join(bs, ",") + "]"
}
