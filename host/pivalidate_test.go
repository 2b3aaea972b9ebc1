package host_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/wasmagent/wasmagent/host"
	"github.com/wasmagent/wasmagent/host/hosttest"
)

// TestValidationMatchesPi compares Schema.ValidateArguments with pi-ai
// 0.73.1's validateToolArguments (testdata/pi/validate.mjs, one node
// process) on generated schemas and arguments: every keyword TypeBox's
// checker knows, formats, draft-07 forms (tuple items, additionalItems,
// dependencies) and keyword values of the wrong type, which TypeBox
// ignores (docs/loop.md 6.4.3). Each side's answer is the validated
// arguments, or the validation failure (its per-error lines removed, as
// in TestMatchesPiGenerated), or another failure (a schema that does not
// compile: the texts are not compared).
//
// WASMAGENT_PIVALIDATE_N sets the number of cases (default 400, 100
// under the race detector), WASMAGENT_PIVALIDATE_SEED the first seed.
func TestValidationMatchesPi(t *testing.T) {
	node := piNode(t)
	n, seed := hosttest.EnvInt(t, "WASMAGENT_PIVALIDATE_N", piValidationCases), hosttest.EnvInt(t, "WASMAGENT_PIVALIDATE_SEED", 1)
	cases := make([]piValidationCase, n)
	for i := range cases {
		cases[i] = generateValidationCase(uint64(seed + i))
	}
	theirs := runValidationOnPi(t, node, cases)
	failures := 0
	for i, c := range cases {
		ours := ourValidation(c)
		if ours == theirs[i] {
			continue
		}
		t.Errorf("seed %d: schema %s\nargs %s\n ours: %q\n   pi: %q", c.Seed, c.Schema, c.Args, ours, theirs[i])
		if failures++; failures == 10 {
			t.Fatalf("stopping after %d differing cases", failures)
		}
	}
	t.Logf("%d of %d cases (seeds %d…%d) match pi", n-failures, n, seed, seed+n-1)
}

type piValidationCase struct {
	Seed   uint64          `json:"-"`
	Schema json.RawMessage `json:"schema"`
	Args   json.RawMessage `json:"args"`
}

// A validation's outcome, as compared: "ok " and the arguments as
// canonical JSON, "invalid " and the normalised message, or "error" (a
// failure that is not a validation failure).
func validationOutcome(ok json.RawMessage, errText string, isErr bool) string {
	if isErr {
		if !validationLines.MatchString(errText) {
			return "error"
		}
		return "invalid " + validationLines.ReplaceAllString(errText, "$1  - …$2")
	}
	var v any
	if err := json.Unmarshal(ok, &v); err != nil {
		return "bad JSON " + string(ok)
	}
	b, _ := json.Marshal(v)
	// JSON.stringify writes -0 as 0; our validated arguments keep the
	// model's number text (only the value is compared).
	b = negativeZero.ReplaceAll(b, []byte("${1}0${2}"))
	return "ok " + string(b)
}

func ourValidation(c piValidationCase) string {
	s, err := host.CompileForCall(c.Schema)
	if err != nil {
		return "error"
	}
	v, err := s.ValidateArguments("t", c.Args)
	if err != nil {
		return validationOutcome(nil, err.Error(), true)
	}
	return validationOutcome(v, "", false)
}

func runValidationOnPi(t *testing.T, node string, cases []piValidationCase) []string {
	t.Helper()
	var in bytes.Buffer
	for _, c := range cases {
		b, err := json.Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		in.Write(b)
		in.WriteByte('\n')
	}
	cmd := exec.Command(node, "validate.mjs")
	cmd.Dir = filepath.Join("testdata", "pi")
	cmd.Stdin = &in
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node validate.mjs: %v\n%s", err, stderr.Bytes())
	}
	var all []string
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var a struct {
			OK    json.RawMessage `json:"ok"`
			Error *string         `json:"error"`
		}
		if err := json.Unmarshal(sc.Bytes(), &a); err != nil {
			t.Fatalf("validate.mjs wrote %q: %v", sc.Text(), err)
		}
		if a.Error != nil {
			all = append(all, validationOutcome(nil, *a.Error, true))
		} else {
			all = append(all, validationOutcome(a.OK, "", false))
		}
	}
	if len(all) != len(cases) {
		t.Fatalf("validate.mjs answered %d of %d cases\n%s", len(all), len(cases), stderr.Bytes())
	}
	return all
}

var negativeZero = regexp.MustCompile(`([\[:,])-0([,\]}])`)

// piFormatSamples are strings for each format TypeBox checks (and some it
// does not know), valid and not.
var piFormatSamples = map[string][]string{
	"date":                      {"2020-02-29", "2021-02-29", "2020-13-01", "2020-1-01", "2020-04-31", "2000-02-29", "1900-02-29"},
	"time":                      {"12:00:00Z", "12:00:00", "23:59:60Z", "12:00:00.5+01:00", "25:00:00Z", "23:59:60+01:00", "00:59:60+01:00", "12:00:00z"},
	"date-time":                 {"2020-01-01T12:00:00Z", "2020-01-01t12:00:00z", "2020-01-01 12:00:00Z", "2020-01-01T12:00:00", "2020-02-30T12:00:00Z", "2020-01-01T12:00:00.123+05:30", "2020-01-01T12:00:00Z[Europe/Paris]", "2020-01-01T12:00:00Z[..]", "2020-01-01T12:00:00Z[u-ca=iso8601]"},
	"duration":                  {"P1D", "PT1H", "P1W", "P", "P1DT", "P1Y2M", "PT1.5S", "P1W2D", "p1d"},
	"email":                     {"a@b.co", "a@b", "nope", "\"x y\"@example.com", "A@B.COM", "a@[1.2.3.4]", "a..b@c.d", "a@-b.com", "a@b..c", "é@b.co"},
	"ipv4":                      {"1.2.3.4", "1.2.3", "256.1.1.1", "01.2.3.4", "0.0.0.0", "1.2.3.4 "},
	"ipv6":                      {"::1", "1::", "::ffff:1.2.3.4", "1:2:3:4:5:6:7:8", "1:2:3:4:5:6:7:8:9", "g::1", "::", "FE80::1", "1::2::3"},
	"uri":                       {"http://x.org/a?b#c", "nope", "urn:isbn:123", "http://[::1]/", "http://a b", "mailto:a@b", "/relative", "http://x/%zz", "HTTP://X"},
	"uri-reference":             {"/a/b", "#frag", "a b", "http://x", "", "?q", "//host/p", "%zz"},
	"uuid":                      {"123e4567-e89b-12d3-a456-426614174000", "123E4567-E89B-12D3-A456-426614174000", "123e4567e89b12d3a456426614174000", "123e4567-e89b-12d3-a456-42661417400g"},
	"json-pointer":              {"", "/a/b", "/a~0", "/a~2", "a", "/"},
	"relative-json-pointer":     {"0", "1/a", "0#", "01", "-1", "2/~1"},
	"uri-template":              {"http://x/{id}", "{+path}", "{bad", "x{a,b*}", "x}", "{a:10}", "{a:0}"},
	"hostname":                  {"example.com", "-bad.com", "a_b.com", "a.b.c", "localhost", "ex ample.com", "a.", "xn--nxasmq6b.com", "xn--a.com", "ab--c.com"},
	"regex":                     {"^a+$", "(", "[a-z]", "a{2}", "\\d+"},
	"url":                       {"http://x", "nope", "a:b", "http://", "ftp://x/y", "file:///tmp/x", "mailto:a@b", "http://exa mple.com", "//x", "http://[::1]:80/", "x:"},
	"iri":                       {"http://é.com/ü", "nope", "http://x/a b", "http://x/%zz", "urn:x"},
	"iri-reference":             {"/a/b", "#f", "a b", "http://x", "é", "//x", "http//x", "%zz"},
	"idn-email":                 {"é@b.co", "a@b", "a@-b.com", "a@b-.com", "\"x\"@y.z", "a@b..c", "nope"},
	"idn-hostname":              {"例え.jp", "a.b", "-a.com", "a_b", "a..b", "a。b"},
	"json-pointer-uri-fragment": {"#", "#/a", "#/a%20b", "/a", "#/~2"},
	"whatever":                  {"x", ""},
	"semver":                    {"1.2.3", "nope"},
	"period":                    {"nope"},
}

var piFormats = func() []string {
	var out []string
	for f := range piFormatSamples {
		out = append(out, f)
	}
	return out
}()

type valGen struct {
	r       *rand.Rand
	depth   int
	defs    map[string]any // definitions the schema's references name
	defsKey string         // where they are: $defs or definitions
}

func (g *valGen) chance(n int) bool { return g.r.IntN(n) == 0 }
func (g *valGen) pickS(xs []string) string {
	return xs[g.r.IntN(len(xs))]
}
func (g *valGen) pickV(xs ...any) any { return xs[g.r.IntN(len(xs))] }

// generateValidationCase draws a schema (an object with a few properties,
// now and then with object-level keywords) and arguments for it.
func generateValidationCase(seed uint64) piValidationCase {
	g := &valGen{r: rand.New(rand.NewPCG(seed, 0x7a11d)), defs: map[string]any{}, defsKey: "$defs"}
	if g.chance(2) {
		g.defsKey = "definitions"
	}
	if g.chance(8) { // arguments that are no object, against a schema of any kind
		sub, sample := g.leaf()
		if m, ok := sub.(map[string]any); ok && len(g.defs) > 0 {
			m[g.defsKey] = g.defs
		}
		s, _ := json.Marshal(sub)
		a, _ := json.Marshal(sample())
		return piValidationCase{Seed: seed, Schema: s, Args: a}
	}
	schema := map[string]any{"type": "object"}
	props := map[string]any{}
	args := map[string]any{}
	names := []string{"a", "b", "c"}[:1+g.r.IntN(3)]
	for _, name := range names {
		sub, sample := g.leaf()
		props[name] = sub
		if !g.chance(6) {
			args[name] = sample()
		}
	}
	schema["properties"] = props
	if len(g.defs) > 0 {
		schema[g.defsKey] = g.defs
	}
	g.objectKeywords(schema, names)
	if g.chance(8) {
		schema["$schema"] = "http://json-schema.org/draft-07/schema#"
	}
	if g.chance(10) {
		args[g.pickS([]string{"extra", "a", "zz", "7", "10", "0"})] = g.anyValue()
	}
	s, _ := json.Marshal(schema)
	a, _ := json.Marshal(args)
	if g.chance(3) { // the same value written as JSON.stringify would not
		a = json.RawMessage(g.noisyJSON(args))
	}
	return piValidationCase{Seed: seed, Schema: s, Args: a}
}

func (g *valGen) objectKeywords(schema map[string]any, names []string) {
	if g.chance(2) {
		req := []any{}
		for range 1 + g.r.IntN(2) {
			req = append(req, g.pickS(append(names, "zz")))
		}
		schema["required"] = req
	}
	switch g.r.IntN(12) {
	case 0:
		schema["required"] = g.pickS(names) // not a list: TypeBox ignores it
	case 1:
		schema["additionalProperties"] = false
	case 2:
		schema["additionalProperties"] = map[string]any{"type": "integer"}
	case 3:
		schema["dependencies"] = map[string]any{names[0]: []any{g.pickS([]string{"b", "zz"})}}
	case 4:
		schema["dependencies"] = map[string]any{names[0]: map[string]any{"required": []any{"zz"}}}
	case 5:
		schema["dependentRequired"] = map[string]any{names[0]: []any{"zz"}}
	case 6:
		schema["propertyNames"] = map[string]any{"maxLength": 1}
	case 7:
		schema["minProperties"], schema["maxProperties"] = g.r.IntN(3), g.pickV(1, 2, 1.5, "2")
	case 8:
		schema["patternProperties"] = map[string]any{"^z": map[string]any{"type": "integer"}}
	case 9:
		schema["if"] = map[string]any{"properties": map[string]any{names[0]: map[string]any{"type": "string"}}}
		schema["then"] = map[string]any{"required": []any{"zz"}}
	}
}

// leaf draws a property's schema and a function drawing values for it.
func (g *valGen) leaf() (any, func() any) {
	g.depth++
	defer func() { g.depth-- }()
	generic := func() any { return g.anyValue() }
	switch k := g.r.IntN(16); {
	case k == 0 && g.depth < 3:
		sub, sample := g.leaf()
		return map[string]any{"type": "array", "items": sub, "minItems": g.pickV(0, 1, 1.5, "1"), "uniqueItems": g.pickV(true, false, "yes")},
			func() any {
				if g.chance(4) {
					return generic()
				}
				out := []any{}
				for range g.r.IntN(3) {
					out = append(out, sample())
				}
				return out
			}
	case k == 1 && g.depth < 3:
		// draft-07 tuple form, with additionalItems
		s1, v1 := g.leaf()
		s2, v2 := g.leaf()
		m := map[string]any{"type": "array", "items": []any{s1, s2}, "maxItems": g.pickV(nil, 2, 2.5, -1)}
		if g.chance(2) {
			m["additionalItems"] = g.pickV(false, map[string]any{"type": "string"}, true)
		}
		return m, func() any {
			out := []any{v1(), v2()}
			if g.chance(3) {
				out = append(out, g.anyValue())
			}
			return out[:g.r.IntN(len(out)+1)]
		}
	case k == 2 && g.depth < 3:
		s1, v1 := g.leaf()
		return map[string]any{"type": "array", "prefixItems": []any{s1}, "items": g.pickV(false, map[string]any{"type": "integer"})},
			func() any { return []any{v1(), g.anyValue()}[:g.r.IntN(3)] }
	case k == 3 && g.depth < 3:
		s1, v1 := g.leaf()
		s2, v2 := g.leaf()
		kw := g.pickS([]string{"anyOf", "oneOf", "allOf"})
		return map[string]any{kw: []any{s1, s2}}, func() any {
			if g.chance(2) {
				return v1()
			}
			return v2()
		}
	case k <= 6:
		f := g.pickS(piFormats)
		m := map[string]any{"type": "string", "format": f}
		if g.chance(6) {
			delete(m, "type") // a format without a type applies to strings only
		}
		return m, func() any {
			if g.chance(8) {
				return generic()
			}
			return g.pickS(piFormatSamples[f])
		}
	case k == 7:
		m := map[string]any{"type": "string"}
		switch g.r.IntN(4) {
		case 0:
			m["minLength"] = g.pickV(2, 3, -1, "2", 0) // whole numbers: TypeBox shifts them (schemacompat.go)
		case 1:
			m["maxLength"] = g.pickV(2, -1, "1", 0)
		case 2:
			m["pattern"] = g.pickS([]string{"^[a-z]+$", "\\d", "^a|b$", "é", "^.{2,3}$"})
		default:
			m["enum"] = []any{"a", "b", 1}
		}
		return m, func() any {
			return g.pickV("a", "ab", "abc", "1", "é", "", "a1", 7, "😀", "😀😀", nil, true)
		}
	case k == 8:
		m := map[string]any{"type": g.pickS([]string{"number", "integer"})}
		switch g.r.IntN(6) {
		case 0:
			m["minimum"] = g.pickV(0, "5", 1.5)
		case 1:
			m["exclusiveMinimum"], m["minimum"] = g.pickV(true, false, 0), 0
		case 2:
			m["maximum"], m["exclusiveMaximum"] = 10, g.pickV(true, 10, "10")
		case 3:
			m["multipleOf"] = g.pickV(0.1, 2, 0.01, 3, "2", 0, -2, 0.7)
		}
		return m, func() any {
			return g.pickV(0, 1, -1, 10, 2.5, 0.3, 0.7, 0.30000000000000004, 1e-11, 6, "3", "x", nil, true, 1e21)
		}
	case k == 9:
		types := []any{g.pickS([]string{"string", "number", "integer", "boolean", "null", "objekt", "object", "array"})}
		if g.chance(2) {
			types = append(types, g.pickS([]string{"string", "null", "integer", "bigint", "any"}))
		}
		var t any = types
		if len(types) == 1 && g.chance(2) {
			t = types[0]
		}
		return map[string]any{"type": t}, generic
	case k == 10:
		return map[string]any{g.pickS([]string{"const", "enum"}): g.pickV(map[string]any{"x": 1.0, "y": []any{true}}, []any{1.0, "1", nil}, "a")}, func() any {
			return g.pickV(map[string]any{"y": []any{true}, "x": 1.0}, 1, "1", nil, "a", []any{1.0, "1", nil})
		}
	case k == 11:
		return map[string]any{"type": "array", "contains": map[string]any{"type": "integer"}, "minContains": g.pickV(0, 1, 2, "2"), "maxContains": g.pickV(1, 2)},
			func() any {
				return g.pickV([]any{}, []any{1.0}, []any{1.0, 2.0}, []any{"x", 1.0}, []any{1.0, 2.0, 3.0})
			}
	case k == 13 && g.depth < 3:
		sub, sample := g.leaf()
		m := map[string]any{"type": "object", "properties": map[string]any{"k": sub}, "required": []any{"k"}}
		switch g.r.IntN(3) {
		case 0:
			m["additionalProperties"] = false
		case 1:
			m["additionalProperties"] = map[string]any{"type": g.pickS([]string{"integer", "boolean", "string"})}
		}
		return m, func() any {
			if g.chance(6) {
				return generic()
			}
			obj := map[string]any{"k": sample()}
			if g.chance(3) {
				obj["other"] = g.anyValue()
			}
			return obj
		}
	case k == 14 && g.depth < 3:
		// a reference to a definition at the root (coercion does not follow it)
		sub, sample := g.leaf()
		name := fmt.Sprintf("d%d", len(g.defs))
		g.defs[name] = sub
		return map[string]any{"$ref": "#/" + g.defsKey + "/" + name}, sample
	case k == 15:
		return map[string]any{"type": "string", "pattern": g.pickS([]string{"^.+$", "^\\S+$", "^\\s*$", "^[^\\n]*$", "\\w"})}, func() any {
			return g.pickV("a", "a b", "a\rb", "a\u00a0b", " ", "\u2028", "é", "a\nb", "\u000b")
		}
	case k == 12:
		return map[string]any{"not": map[string]any{"type": g.pickS([]string{"string", "null"})}, "type": g.pickV("integer", []any{"integer", "integer"})}, generic
	}
	return map[string]any{"type": g.pickS([]string{"number", "integer", "boolean", "string", "null"})}, generic
}

// noisyJSON writes v as valid JSON that JSON.stringify would write
// otherwise: numbers as 1.50 or 15e-1, characters escaped as \u00e9 or
// \/, keys in another order.
func (g *valGen) noisyJSON(v any) string {
	switch x := v.(type) {
	case float64:
		s := strconv.FormatFloat(x, 'f', -1, 64)
		switch {
		case x == math.Trunc(x) && math.Abs(x) < 1e15 && g.chance(2):
			return s + ".0"
		case g.chance(3):
			return strconv.FormatFloat(x, 'e', -1, 64)
		case x == 0 && g.chance(2):
			return "-0"
		}
		return s
	case int:
		return g.noisyJSON(float64(x))
	case string:
		var b strings.Builder
		b.WriteByte('"')
		for _, r := range x {
			switch {
			case r == '"' || r == '\\':
				b.WriteString(`\` + string(r))
			case r < 0x20 || (r < 0x10000 && g.chance(3)):
				fmt.Fprintf(&b, `\u%04x`, r)
			case r == '/':
				b.WriteString(`\/`)
			default:
				b.WriteRune(r)
			}
		}
		b.WriteByte('"')
		return b.String()
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = g.noisyJSON(e)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		g.r.Shuffle(len(keys), func(i, j int) { keys[i], keys[j] = keys[j], keys[i] })
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = g.noisyJSON(k) + ": " + g.noisyJSON(x[k])
		}
		return "{" + strings.Join(parts, ",") + "}"
	}
	b, _ := json.Marshal(v)
	return string(b)
}

func (g *valGen) anyValue() any {
	return g.pickV(1, 0, -3, 2.5, "3", "abc", "", "true", "false", true, false, nil, []any{1.0, "2"}, []any{}, map[string]any{}, map[string]any{"k": "1"}, "12.0", " 7 ")
}
