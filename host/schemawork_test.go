package host

import (
	"encoding/json"
	"math"
	"math/rand"
	"strconv"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// anyOfTree is a full binary tree of anyOf, depth levels deep, whose
// 2^depth leaves are integers.
func anyOfTree(depth int) string {
	if depth == 0 {
		return `{"type":"integer"}`
	}
	sub := anyOfTree(depth - 1)
	return `{"anyOf":[` + sub + `,` + sub + `]}`
}

func itemsSchema(t *testing.T, items string) *Schema {
	t.Helper()
	s, err := CompileSchema(json.RawMessage(`{"type":"object","properties":{"a":{"type":"array","items":` + items + `}}}`))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func stringsArg(n int) json.RawMessage {
	return json.RawMessage(`{"a":[` + strings.Repeat(`"x",`, n-1) + `"x"]}`)
}

// charged is the work b has been charged.
func charged(b *workBudget) int { return b.limit - b.left }

// smallBudget is a budget of n steps, for tests to run out of quickly.
func smallBudget(n int) *workBudget { return &workBudget{limit: n, left: n} }

// The reviewer's schema: a binary tree of anyOf 11 levels deep (4095
// objects, 63 KB, within MaxSchemaObjects and MaxSchemaDepth) as an
// array's items. On the old main each element cost 124 ms of host CPU
// (10,000 short strings: about 20 minutes); now that call is refused
// before any coercion (shown with a budget of 2^18 steps, the real one
// taking 64 times longer to run out), and one whose bound runs out midway
// (2^20 steps against 100 elements, the tree 8 deep) stops having done no
// more than its budget.
func TestValidationWorkIsBounded(t *testing.T) {
	s := itemsSchema(t, anyOfTree(11))
	v, _, _ := decodeOrdered(stringsArg(1))
	if n := checks(s.sch, v, math.MaxInt32); 10000*n <= MaxValidationWork {
		t.Fatalf("one element is %d checks: 10,000 fit MaxValidationWork", n)
	}
	b := smallBudget(1 << 18)
	_, err := s.validateArguments("t", stringsArg(10000), b)
	if err == nil || !strings.Contains(err.Error(), "root: checking these arguments against the tool's schema takes more than 262144 steps (host.MaxValidationWork)") {
		t.Fatalf("err = %v", err)
	}
	if b.coerced != 0 {
		t.Fatalf("%d coerce calls before the refusal", b.coerced)
	}
	s = itemsSchema(t, anyOfTree(8)) // the same shape, smaller, to compile its branches quickly
	b = smallBudget(1 << 20)
	_, err = s.validateArguments("t", stringsArg(100), b)
	if err == nil || !strings.Contains(err.Error(), "takes more than 1048576 steps (host.MaxValidationWork)") {
		t.Fatalf("err = %v", err)
	}
	if !b.over || b.left < 0 || b.coerced == 0 || b.coerced > charged(b) {
		t.Fatalf("over %v, left %d, %d coerce calls for %d charged", b.over, b.left, b.coerced, charged(b))
	}
	// A few elements stay well within the bound and are checked as before.
	out, err := s.ValidateArguments("t", json.RawMessage(`{"a":["1",2,"3"]}`))
	if err != nil || string(out) != `{"a":[1,2,3]}` {
		t.Fatalf("%s, %v", out, err)
	}
	_, err = s.ValidateArguments("t", json.RawMessage(`{"a":["x"]}`))
	if err == nil || strings.Contains(err.Error(), "MaxValidationWork") || !strings.Contains(err.Error(), "a.0: ") {
		t.Fatalf("err = %v", err)
	}
}

// Listing every mismatch costs far more than finding one: when the list
// would pass the bound the call fails with one line naming it, and a short
// list is pi's.
func TestMismatchListIsBounded(t *testing.T) {
	s := itemsSchema(t, anyOfTree(7))
	_, err := s.validateArguments("t", stringsArg(60), smallBudget(1<<20))
	if err == nil || !strings.Contains(err.Error(), "root: listing how these arguments miss the tool's schema takes more than 1048576 steps (host.MaxValidationWork)") {
		t.Fatalf("err = %v", err)
	}
	_, err = s.validateArguments("t", stringsArg(2), smallBudget(1<<20))
	if err == nil || !strings.Contains(err.Error(), "  - a.1: ") {
		t.Fatalf("err = %v", err)
	}
}

// A $ref graph that fans out applies exponentially many subschemas to one
// value (on the old main 22 definitions, each an anyOf of two references
// to the next, took 2m19s to check one string): counting the work stops at
// the bound, before any of it is done. Recursion that follows the value's
// depth costs what the value holds.
func TestRefFanOutIsBounded(t *testing.T) {
	var defs strings.Builder
	for i := range 22 {
		next := `{"$ref":"#/$defs/d` + strconv.Itoa(i+1) + `"}`
		defs.WriteString(`"d` + strconv.Itoa(i) + `":{"anyOf":[` + next + `,` + next + `]},`)
	}
	defs.WriteString(`"d22":{"type":"integer"}`)
	s, err := CompileSchema(json.RawMessage(`{"type":"object","$defs":{` + defs.String() + `},"properties":{"a":{"$ref":"#/$defs/d0"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	b := smallBudget(1 << 16)
	_, err = s.validateArguments("t", json.RawMessage(`{"a":"x"}`), b)
	if err == nil || !strings.Contains(err.Error(), "root: checking these arguments against the tool's schema takes more than 65536 steps (host.MaxValidationWork)") {
		t.Fatalf("err = %v", err)
	}
	if b.coerced != 0 {
		t.Fatalf("%d coerce calls before the refusal", b.coerced)
	}
	tree := `{"type":"object","$defs":{"node":{"type":"object","properties":{"name":{"type":"string"},"left":{"$ref":"#/$defs/node"},"right":{"$ref":"#/$defs/node"}}}},"properties":{"root":{"$ref":"#/$defs/node"}}}`
	s, err = CompileSchema(json.RawMessage(tree))
	if err != nil {
		t.Fatal(err)
	}
	arg := `{"name":"leaf"}`
	for range 12 { // 8191 nodes, 40 deep in the value
		arg = `{"name":"n","left":` + arg + `,"right":` + arg + `}`
	}
	b = newWorkBudget()
	out, err := s.validateArguments("t", json.RawMessage(`{"root":`+arg+`}`), b)
	if err != nil || !strings.HasPrefix(string(out), `{"root":{"name":"n","left":{"name":"n",`) {
		t.Fatalf("%.80s, %.200v", out, err)
	}
	if charged(b) > 10*4096*4 {
		t.Fatalf("%d steps charged for 8191 nodes", charged(b))
	}
}

// Plain schemas and big arguments never come near the bound: a 16 MiB
// argument (8 million array elements) against a plain object schema, or
// against schemas like those the first-party plugins' sdk.SchemaFor
// writes, is charged less than half of it. The charge is checked against
// what a real call is charged for a 1 MiB argument.
func TestPlainSchemasStayFarFromTheBound(t *testing.T) {
	schemas := map[string]string{
		"plain": `{"type":"object","properties":{"a":{"type":"array","items":{"type":"number"}}}}`,
		"calc":  `{"type":"object","properties":{"a":{"type":"array","items":{"type":"number"}},"expression":{"type":"string","description":"an arithmetic expression"}},"required":["expression"],"additionalProperties":false}`,
		"fs":    `{"type":"object","properties":{"path":{"type":"string"},"a":{"type":"array","items":{"type":"number"}},"offset":{"type":"integer","minimum":0},"limit":{"type":"integer","minimum":0},"pattern":{"type":"string"}},"required":["path"],"additionalProperties":false}`,
	}
	const mib = 1 << 20
	for name, schema := range schemas {
		s, err := CompileSchema(json.RawMessage(schema))
		if err != nil {
			t.Fatal(name, err)
		}
		arg := func(size int) json.RawMessage { // {"a":[1,1,…]} of about size bytes
			return json.RawMessage(`{"a":[` + strings.Repeat(`1,`, size/2-5) + `1]}`)
		}
		b := newWorkBudget()
		args := arg(mib / 16)
		switch name {
		case "fs":
			args = json.RawMessage(`{"path":"x",` + string(args[1:]))
		case "calc":
			args = json.RawMessage(`{"expression":"1",` + string(args[1:]))
		}
		if _, err := s.validateArguments("t", args, b); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if b.coerced > charged(b) {
			t.Fatalf("%s: %d coerce calls for %d charged", name, b.coerced, charged(b))
		}
		// The charge grows with the argument's elements: 16 MiB is 256 times
		// 64 KiB's.
		if big := 256 * charged(b); big > MaxValidationWork*3/4 {
			t.Errorf("%s: a 16 MiB argument would be charged %d of %d", name, big, MaxValidationWork)
		}
	}
}

// A check that reads a whole string is charged by its length: a 1 MiB
// string against 300 patterns reads 300 MiB (0.9 s of host CPU on the old
// main; 16 MiB against 4000 patterns, within MaxSchemaObjects, about 3
// minutes). One pattern, or a plain string schema, is far from the bound.
func TestLongStringsWeighTheirLength(t *testing.T) {
	patterns := strings.Repeat(`{"pattern":"x$"},`, 299) + `{"pattern":"x$"}`
	s, err := CompileSchema(json.RawMessage(`{"type":"object","properties":{"a":{"allOf":[` + patterns + `]}}}`))
	if err != nil {
		t.Fatal(err)
	}
	arg := json.RawMessage(`{"a":"` + strings.Repeat("y", 1<<20) + `x"}`)
	_, err = s.ValidateArguments("t", arg)
	if err == nil || !strings.Contains(err.Error(), "(host.MaxValidationWork)") {
		t.Fatalf("err = %.200v", err)
	}
	for _, schema := range []string{`{"type":"string","pattern":"x$","maxLength":2000000}`, `{"type":"string"}`} {
		s, err := CompileSchema(json.RawMessage(`{"type":"object","properties":{"a":` + schema + `}}`))
		if err != nil {
			t.Fatal(err)
		}
		b := newWorkBudget()
		if _, err := s.validateArguments("t", arg, b); err != nil {
			t.Fatalf("%s: %.200v", schema, err)
		}
		if 16*charged(b) > MaxValidationWork { // 16 MiB would fit
			t.Fatalf("%s: %d steps for 1 MiB", schema, charged(b))
		}
	}
}

// uniqueItems, const and enum read a whole array or object at each check:
// 300 of them against an array of 20,000 elements is 6 million reads,
// charged as such (here against a budget of 2^20 steps); one uniqueItems
// on a plain array is not near the bound.
func TestWholeValueReadsAreCharged(t *testing.T) {
	var arr strings.Builder
	for i := range 20000 {
		arr.WriteString(strconv.Itoa(i) + ",")
	}
	args := json.RawMessage(`{"a":[` + arr.String() + `-1]}`)
	for _, kw := range []string{`"uniqueItems":true`, `"const":[1,2]`, `"enum":[[1],[2],[3]]`} {
		many := strings.Repeat(`{`+kw+`},`, 299) + `{` + kw + `}`
		s, err := CompileSchema(json.RawMessage(`{"type":"object","properties":{"a":{"allOf":[` + many + `]}}}`))
		if err != nil {
			t.Fatal(err)
		}
		_, err = s.validateArguments("t", args, smallBudget(1<<20))
		if err == nil || !strings.Contains(err.Error(), "takes more than 1048576 steps (host.MaxValidationWork)") {
			t.Fatalf("%s: err = %.200v", kw, err)
		}
	}
	s, err := CompileSchema(json.RawMessage(`{"type":"object","properties":{"a":{"type":"array","uniqueItems":true}}}`))
	if err != nil {
		t.Fatal(err)
	}
	b := newWorkBudget()
	if _, err := s.validateArguments("t", args, b); err != nil {
		t.Fatalf("err = %.200v", err)
	}
	if 400*charged(b) > MaxValidationWork { // 8 million elements would fit
		t.Fatalf("%d steps for 20,000 elements", charged(b))
	}
}

// countingVocab counts every subschema the validator evaluates.
type countingVocab struct{ n *int }

func (c countingVocab) Validate(*jsonschema.ValidatorContext, any) { *c.n++ }

// genUnionSchema writes a random union-heavy schema: anyOf, oneOf and
// allOf of 1 to 3 branches, arrays and objects of them, leaves that take
// some values and refuse others, and references to definitions.
func genUnionSchema(r *rand.Rand, depth int) string {
	if depth == 0 || r.Intn(5) == 0 {
		leaves := []string{`{"type":"integer"}`, `{"type":"string"}`, `{"type":"boolean"}`, `{"type":"null"}`, `{"minLength":1}`, `{"maxLength":0}`, `{}`, `{"$ref":"#/$defs/d"}`, `{"type":["number","string"]}`}
		return leaves[r.Intn(len(leaves))]
	}
	branches := func() string {
		n := 1 + r.Intn(3)
		parts := make([]string, n)
		for i := range parts {
			parts[i] = genUnionSchema(r, depth-1)
		}
		return strings.Join(parts, ",")
	}
	switch r.Intn(6) {
	case 0:
		return `{"anyOf":[` + branches() + `]}`
	case 1:
		return `{"oneOf":[` + branches() + `]}`
	case 2:
		return `{"allOf":[` + branches() + `]}`
	case 3:
		return `{"type":"array","items":` + genUnionSchema(r, depth-1) + `}`
	case 4:
		return `{"type":"object","properties":{"p":` + genUnionSchema(r, depth-1) + `,"q":` + genUnionSchema(r, depth-1) + `},"additionalProperties":` + genUnionSchema(r, depth-1) + `}`
	}
	return `{"anyOf":[` + branches() + `],"type":["array","object","string","integer"]}`
}

// genValue writes a random argument value for the generated schemas.
func genValue(r *rand.Rand, depth int) string {
	if depth == 0 || r.Intn(3) == 0 {
		scalars := []string{`"x"`, `"1"`, `"true"`, `""`, `1`, `0`, `1.5`, `true`, `false`, `null`}
		return scalars[r.Intn(len(scalars))]
	}
	n := r.Intn(4)
	parts := make([]string, n)
	if r.Intn(2) == 0 {
		for i := range parts {
			parts[i] = genValue(r, depth-1)
		}
		return `[` + strings.Join(parts, ",") + `]`
	}
	for i := range parts {
		parts[i] = `"` + []string{"p", "q", "z"}[r.Intn(3)] + strconv.Itoa(i) + `":` + genValue(r, depth-1)
	}
	return `{` + strings.Join(parts, ",") + `}`
}

// Over a generated family of union-heavy schemas and arguments, every call
// is charged no more than MaxValidationWork, its coercion walk never
// outruns what it was charged, the count a charge is drawn from bounds the
// subschemas the validator really evaluates (counted by a vocabulary the
// validator calls on every subschema), and the validity-only check
// through "not" agrees with the full one.
func TestUnionHeavySchemasStayInBudget(t *testing.T) {
	r := rand.New(rand.NewSource(6))
	for i := range 70 {
		schema := `{"$defs":{"d":` + genUnionSchema(r, 3) + `},"type":"object","properties":{"a":` + genUnionSchema(r, 5) + `}}`
		s, err := CompileSchema(json.RawMessage(schema))
		if err != nil {
			t.Fatalf("%d: %s: %v", i, schema, err)
		}
		for range 5 {
			arg := `{"a":` + genValue(r, 5) + `}`
			b := newWorkBudget()
			out, err := s.validateArguments("t", json.RawMessage(arg), b)
			if b.left < 0 || b.coerced > charged(b) {
				t.Fatalf("%s against %s: left %d, %d coerce calls for %d charged", arg, schema, b.left, b.coerced, charged(b))
			}
			if err != nil {
				out = json.RawMessage(arg) // the validator still sees the uncoerced value
			}
			evaluated := countEvaluations(t, schema, out)
			v, _, _ := decodeOrdered(out)
			if s.valid(v) != (s.check(v) == nil) {
				t.Fatalf("%s against %s: valid says %v, the full check %v", out, schema, s.valid(v), s.check(v))
			}
			if bound := checks(s.sch, v, math.MaxInt32); evaluated > bound {
				t.Fatalf("%s against %s: %d subschemas evaluated, profile bound %d", out, schema, evaluated, bound)
			}
		}
	}
}

func countEvaluations(t *testing.T, schema string, value json.RawMessage) int {
	t.Helper()
	n := 0
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(schema))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertVocabs()
	c.RegisterVocabulary(&jsonschema.Vocabulary{URL: "urn:count", Compile: func(*jsonschema.CompilerContext, map[string]any) (jsonschema.SchemaExt, error) {
		return countingVocab{&n}, nil
	}})
	if err := c.AddResource("tool.json", doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("tool.json")
	if err != nil {
		t.Fatal(err)
	}
	v, err := jsonschema.UnmarshalJSON(strings.NewReader(string(value)))
	if err != nil {
		t.Fatal(err)
	}
	_ = sch.Validate(v)
	return n
}

// BenchmarkValidationWorkBound measures what a hostile schema can make one
// call cost within MaxValidationWork: the reviewer's anyOf tree as items,
// with 10,000 elements (refused when counted) and 1,000 (counted, then
// coerced until the bound runs out), the $ref fan-out, and for scale a
// 1 MiB argument against a plain schema.
func BenchmarkValidationWorkBound(b *testing.B) {
	var t testing.T
	tree := itemsSchema(&t, anyOfTree(11))
	plain := itemsSchema(&t, `{"type":"number"}`)
	var defs strings.Builder
	for i := range 22 {
		next := `{"$ref":"#/$defs/d` + strconv.Itoa(i+1) + `"}`
		defs.WriteString(`"d` + strconv.Itoa(i) + `":{"anyOf":[` + next + `,` + next + `]},`)
	}
	defs.WriteString(`"d22":{"type":"integer"}`)
	fan, err := CompileSchema(json.RawMessage(`{"type":"object","$defs":{` + defs.String() + `},"properties":{"a":{"$ref":"#/$defs/d0"}}}`))
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name string
		s    *Schema
		arg  json.RawMessage
	}{
		{"tree/10000", tree, stringsArg(10000)},
		{"tree/1000", tree, stringsArg(1000)},
		{"reffanout", fan, json.RawMessage(`{"a":"x"}`)},
		{"plain/1MiB", plain, json.RawMessage(`{"a":[` + strings.Repeat(`1,`, 1<<19-5) + `1]}`)},
	} {
		b.Run(c.name, func(b *testing.B) {
			for range b.N {
				_, _ = c.s.ValidateArguments("t", c.arg)
			}
		})
	}
}

// The validity-only check through "not" resolves the schema's references
// and reads its draft as the schema alone does, whatever its $id.
func TestValidityCheckKeepsReferences(t *testing.T) {
	for _, schema := range []string{
		`{"$id":"https://example.com/tool","type":"object","$defs":{"n":{"type":"integer"}},"properties":{"a":{"$ref":"#/$defs/n"}}}`,
		`{"$id":"urn:tool","type":"object","properties":{"a":{"$ref":"#/properties/b"},"b":{"type":"integer"}}}`,
		`{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","definitions":{"n":{"type":"integer"}},"properties":{"a":{"$ref":"#/definitions/n"}}}`,
		`{"type":"object","properties":{"a":{"$anchor":"n","type":"integer"},"b":{"$ref":"#n"}}}`,
		`{"$schema":"https://json-schema.org/draft/2019-09/schema","type":"object","properties":{"a":{"type":"array","items":[{"type":"integer"}],"additionalItems":false}}}`,
	} {
		s, err := CompileSchema(json.RawMessage(schema))
		if err != nil {
			t.Fatalf("%s: %v", schema, err)
		}
		seen := map[bool]bool{}
		for _, arg := range []string{`{"a":1,"b":2}`, `{"a":"x","b":2}`, `{"a":1,"b":"x"}`, `{"a":[1]}`, `{"a":[1,2]}`} {
			v, _, _ := decodeOrdered(json.RawMessage(arg))
			seen[s.valid(v)] = true
			if s.valid(v) != (s.check(v) == nil) {
				t.Errorf("%s against %s: valid says %v, the full check %v", arg, schema, s.valid(v), s.check(v))
			}
		}
		if !seen[true] || !seen[false] {
			t.Errorf("%s: the arguments are all valid or all invalid: %v", schema, seen)
		}
	}
}
