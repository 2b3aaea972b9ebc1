package host

import (
	"encoding/json"
	"errors"

	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// numberSchemas use every keyword the validator evaluates with exact
// arithmetic: bounds, multipleOf, const, enum, and uniqueItems (which
// hashes numbers past 20 items).
var numberSchemas = []string{
	`{"type":"object","properties":{"n":{"type":"number","minimum":0}}}`,
	`{"type":"object","properties":{"n":{"type":"number","exclusiveMaximum":1e300}}}`,
	`{"type":"object","properties":{"n":{"type":"number","multipleOf":0.5}}}`,
	`{"type":"object","properties":{"n":{"type":"integer"}}}`,
	`{"type":"object","properties":{"n":{"const":0}}}`,
	`{"type":"object","properties":{"n":{"enum":[0,1e-300,"x"]}}}`,
	`{"type":"object","properties":{"n":{"type":"array","uniqueItems":true}}}`,
}

// hostileNumber draws the text of a JSON number: ordinary ones, and ones
// whose exponent or length is far past a double's range.
func hostileNumber(r *rand.Rand) string {
	mant := strconv.Itoa(r.IntN(1000))
	if r.IntN(3) == 0 {
		mant = "0." + strings.Repeat("0", r.IntN(2000)) + "1"
	}
	if r.IntN(4) == 0 {
		mant = "1" + strings.Repeat("0", r.IntN(500)) // a long integer
	}
	exp := []string{"", "e-5", "e-400", "e-401", "e-9999999", "e-99999999", "e-" + strings.Repeat("9", 30), "e-0000000000000000000000001", "E+2", "e300"}[r.IntN(10)]
	sign := []string{"", "-"}[r.IntN(2)]
	return sign + mant + exp
}

// A number too long or too far out for exact arithmetic is judged as the
// double it denotes, as pi judges it: the same verdict, the same arguments
// out, for its text and for the double's text; an ordinary number keeps its
// text; never a validator panic. On the old main, 1e-99999999 against a minimum
// panicked (nil big.Rat) and 1e-9999999 took 80 ms of big arithmetic each.
func TestNumbersAreJudgedAsDoubles(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	for _, src := range numberSchemas {
		s, err := CompileSchema(json.RawMessage(src))
		if err != nil {
			t.Fatal(err)
		}
		for range 40 {
			text := hostileNumber(r)
			f, err := strconv.ParseFloat(text, 64)
			if err != nil {
				continue // overflow: refused, tested elsewhere
			}
			double := strconv.FormatFloat(f, 'g', -1, 64)
			arg := func(n string) string {
				if strings.Contains(src, "uniqueItems") {
					return `{"n":[` + strings.Repeat(n+",", 21) + `1]}`
				}
				return `{"n":` + n + `}`
			}
			got, err1 := s.ValidateArguments("t", json.RawMessage(arg(text)))
			want, err2 := s.ValidateArguments("t", json.RawMessage(arg(double)))
			if errors.Is(err1, errValidatorPanic) || errors.Is(err2, errValidatorPanic) {
				t.Fatalf("%s with %.60s: %v %v", src, text, err1, err2)
			}
			if len(text) <= maxNumberText && exponentWithin(text, maxNumberExponent) {
				// An ordinary number is judged exactly, and kept as written.
				if err1 == nil && string(got) != arg(text) {
					t.Fatalf("an ordinary number changed: %s became %s", arg(text), got)
				}
				continue
			}
			if (err1 == nil) != (err2 == nil) || string(got) != string(want) {
				t.Fatalf("%s: %.60s gives %s %v, its double %s gives %s %v", src, text, got, err1, double, want, err2)
			}
		}
	}
}

// A schema's own numbers past exact arithmetic are taken as their double,
// or refused when the double overflows; none panics the compiler, which
// checks multipleOf > 0 against the meta-schema with exact arithmetic.
func TestSchemaNumbersPastExactArithmetic(t *testing.T) {
	for _, c := range []struct{ schema, want string }{
		{`{"properties":{"n":{"multipleOf":1e-99999999}}}`, "exclusiveMinimum"}, // its double is 0
		{`{"properties":{"n":{"multipleOf":1e-9999999}}}`, "exclusiveMinimum"},
		{`{"properties":{"n":{"minimum":1e99999999}}}`, "does not fit a 64-bit float"},
		{`{"properties":{"n":{"maxLength":1e-99999999}}}`, ""},
		{`{"properties":{"n":{"enum":[1e-99999999]}}}`, ""},
	} {
		_, err := CompileSchema(json.RawMessage(c.schema))
		if errors.Is(err, errValidatorPanic) || (c.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%s: err = %v, want %q", c.schema, err, c.want)
		}
	}
}

func TestExponentWithin(t *testing.T) {
	for _, c := range []struct {
		s  string
		ok bool
	}{{"1", true}, {"1e400", true}, {"1E-400", true}, {"1e+401", false}, {"1e-0000000000400", true}, {"1e" + strings.Repeat("9", 40), false}, {"-0.5e-1", true}} {
		if got := exponentWithin(c.s, 400); got != c.ok {
			t.Errorf("exponentWithin(%s) = %v", c.s, got)
		}
	}
}

// FuzzSchemaValidation compiles arbitrary bytes as a schema and validates
// arbitrary arguments against it: the validator never panics (a panic would
// be recovered as errValidatorPanic, which is reported here).
func FuzzSchemaValidation(f *testing.F) {
	for _, s := range numberSchemas {
		f.Add(s, `{"n":1e-99999999}`)
	}
	f.Add(`{"$defs":{"a":{"$ref":"#/$defs/b"},"b":{"$ref":"#/$defs/a"}},"$ref":"#/$defs/a"}`, `{}`)
	f.Add(`{"properties":{"n":{"pattern":"(a{1000}){1000}"}}}`, `{"n":"a"}`)
	f.Add(`{"anyOf":[{"type":"integer"},{"type":"string","format":"regex"}]}`, `"("`)
	// Forms typeboxView rewrites: a tuple, dependencies, keywords of the
	// wrong type, unknown and JavaScript-only type names, multipleOf 0.
	f.Add(`{"items":[{"type":"integer"},true],"additionalItems":false,"prefixItems":[{}],"dependencies":{"a":["b","b"],"c":{"required":"x"}},"type":["objekt","bigint"]}`, `[1,"2",3]`)
	f.Add(`{"properties":{"n":{"multipleOf":0,"minLength":-1,"maxLength":-1,"maxItems":1.5,"anyOf":[],"format":"date-time"}}}`, `{"n":"2020-01-01T00:00:00Z[..]"}`)
	f.Fuzz(func(t *testing.T, schema, args string) {
		// Both compiles: the check at load, and the loop's (pi's reading,
		// which takes schemas the first refuses).
		for _, compile := range []func(json.RawMessage) (*Schema, error){CompileSchema, compileForCall} {
			s, err := compile(json.RawMessage(schema))
			if errors.Is(err, errValidatorPanic) {
				t.Fatalf("compiling %q: %v", schema, err)
			}
			if err != nil {
				continue
			}
			if _, err := s.ValidateArguments("t", json.RawMessage(args)); errors.Is(err, errValidatorPanic) || (err != nil && strings.Contains(err.Error(), errValidatorPanic.Error())) {
				t.Fatalf("validating %q against %q: %v", args, schema, err)
			}
		}
	})
}

// A schema of more than MaxSchemaObjects objects is refused before the
// validator's compiler, quadratic in its subschemas, sees it; counting
// stops past the limit.
func TestSchemaSizeIsBounded(t *testing.T) {
	props := func(n int) string {
		var b strings.Builder
		b.WriteString(`{"type":"object","properties":{`)
		for i := range n {
			if i > 0 {
				b.WriteString(",")
			}
			b.WriteString(`"p` + strconv.Itoa(i) + `":{}`)
		}
		b.WriteString(`}}`)
		return b.String()
	}
	// props(n) has n+2 objects: the root, its properties, n properties.
	_, err := CompileSchema(json.RawMessage(props(MaxSchemaObjects - 1)))
	if err == nil || !strings.Contains(err.Error(), "MaxSchemaObjects") {
		t.Fatalf("err = %v", err)
	}
	var doc any
	if err := json.Unmarshal([]byte(props(MaxSchemaObjects-2)), &doc); err != nil {
		t.Fatal(err)
	}
	if n := schemaObjects(doc, MaxSchemaObjects); n != MaxSchemaObjects {
		t.Fatalf("%d objects counted, want %d", n, MaxSchemaObjects)
	}
	if n := schemaObjects(doc, 10); n != 11 {
		t.Fatalf("counting went on past the limit: %d", n)
	}
}

// A union branch is compiled once per schema, not once per value coerced:
// on the old main an argument of 10,000 short strings against the items of
// a union with a 4,900-property branch took 2m9s of host CPU (now 0.3 s),
// outside any plugin's deadline.
func TestUnionBranchesCompiledOnce(t *testing.T) {
	s, err := CompileSchema(json.RawMessage(`{"type":"object","properties":{"a":{"type":"array","items":{"anyOf":[{"type":"integer"},{"type":"object","properties":{"q":{"type":"string"}}}]}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	out, err := s.ValidateArguments("t", json.RawMessage(`{"a":["1",{"q":2},"3"]}`))
	if err != nil || string(out) != `{"a":[1,{"q":"2"},3]}` {
		t.Fatalf("%s, %v", out, err)
	}
	first := map[any]*Schema{}
	for k, v := range s.branches {
		first[k] = v
	}
	if _, err := s.ValidateArguments("t", json.RawMessage(`{"a":["4",{"q":5}]}`)); err != nil {
		t.Fatal(err)
	}
	if len(s.branches) != 2 || len(first) != 2 {
		t.Fatalf("%d branches compiled, want 2", len(s.branches))
	}
	for k, v := range s.branches {
		if first[k] != v || v == nil {
			t.Fatal("a branch was compiled again")
		}
	}
}

// A schema nested deeper than MaxSchemaDepth is refused before it is
// compiled; one exactly that deep compiles. On the old main 2400 nested
// anyOf (4800 objects, under MaxSchemaObjects) compiled in 2m23s and the
// first argument against them took longer than 3 minutes more.
func TestSchemaDepthIsBounded(t *testing.T) {
	nested := func(depth int) string { // depth objects, each the items of the one around it
		return strings.Repeat(`{"type":"array","items":`, depth-1) + `{"type":"integer"}` + strings.Repeat(`}`, depth-1)
	}
	if _, err := CompileSchema(json.RawMessage(`{"type":"object","properties":{"a":` + nested(MaxSchemaDepth-2) + `}}`)); err != nil {
		t.Fatalf("a schema %d deep: %v", MaxSchemaDepth, err)
	}
	unions := strings.Repeat(`{"anyOf":[`, 200) + `{"type":"integer"}` + strings.Repeat(`,{"type":"boolean"}]}`, 200)
	for name, schema := range map[string]string{
		"one level more": `{"type":"object","properties":{"a":` + nested(MaxSchemaDepth-1) + `}}`,
		"200 unions":     `{"type":"object","properties":{"a":` + unions + `}}`,
	} {
		_, err := CompileSchema(json.RawMessage(schema))
		if err == nil || !strings.Contains(err.Error(), "nested more than 128 deep (host.MaxSchemaDepth)") {
			t.Errorf("%s: err = %v", name, err)
		}
	}
}
