package sdk

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/wasmagent/wasmagent/host"
	"github.com/wasmagent/wasmagent/host/hosttest"
)

// A generated field: its Go type and tags, a value its tags admit, and
// values that break exactly one of them.
type genField struct {
	typ     reflect.Type
	tag     string
	valid   any
	invalid []any
	// defaultJSON is what the schema's default must be, if tagged.
	defaultJSON string
	// nullable: tagged so, a null validates and decodes to nil.
	nullable bool
}

// genNumberField makes an integer (or float) field with range, enum,
// exclusive-minimum, multipleOf and default tags drawn at random.
func genNumberField(r *rand.Rand, typ reflect.Type) genField {
	unsigned := typ.Kind() >= reflect.Uint && typ.Kind() <= reflect.Uint64
	lo := r.IntN(100) - 50
	if unsigned {
		lo = r.IntN(50)
	}
	hi := lo + r.IntN(40)
	f := genField{typ: typ}
	var tags []string
	useMin, useMax := r.IntN(2) == 0, r.IntN(2) == 0
	if useMin {
		tags = append(tags, fmt.Sprintf(`minimum:"%d"`, lo))
		f.invalid = append(f.invalid, lo-1)
	}
	if useMax {
		tags = append(tags, fmt.Sprintf(`maximum:"%d"`, hi))
		f.invalid = append(f.invalid, hi+1)
	}
	switch r.IntN(4) {
	case 0: // enum: values in range, with a gap so that one in range is out
		vals := []string{strconv.Itoa(lo), strconv.Itoa(hi + 2)}
		if useMax {
			vals[1] = strconv.Itoa(hi)
		}
		if vals[0] == vals[1] {
			vals = vals[:1]
		}
		tags = append(tags, `enum:"`+strings.Join(vals, ",")+`"`)
		f.valid = lo
		if hi > lo+1 || !useMax {
			f.invalid = append(f.invalid, lo+1)
		}
	case 1: // exclusive minimum
		tags = append(tags, fmt.Sprintf(`exclusiveMinimum:"%d"`, lo))
		f.invalid = append(f.invalid, lo)
		f.valid = lo + 1
		if useMax && hi == lo {
			tags = tags[:len(tags)-1]
			f.invalid = f.invalid[:len(f.invalid)-1]
			f.valid = lo
		}
	case 2: // multipleOf, on integers only (no float arithmetic to trust)
		if typ.Kind() == reflect.Float64 || useMin || useMax {
			f.valid = lo
			break
		}
		k := 2 + r.IntN(5)
		tags = append(tags, fmt.Sprintf(`multipleOf:"%d"`, k))
		f.valid = k * (r.IntN(10) + 1)
		f.invalid = append(f.invalid, f.valid.(int)+1)
	default:
		f.valid = lo + r.IntN(hi-lo+1)
	}
	if r.IntN(3) == 0 {
		tags = append(tags, fmt.Sprintf(`default:"%d"`, lo))
		f.defaultJSON = strconv.Itoa(lo)
	}
	f.tag = strings.Join(tags, " ")
	return f
}

func genStringField(r *rand.Rand) genField {
	f := genField{typ: reflect.TypeFor[string]()}
	var tags []string
	if r.IntN(2) == 0 {
		vals := []string{"v" + strconv.Itoa(r.IntN(9)), "w x", "1"}[:1+r.IntN(3)]
		tags = append(tags, `enum:"`+strings.Join(vals, ",")+`"`)
		f.valid = vals[r.IntN(len(vals))]
		f.invalid = append(f.invalid, "nope")
	} else {
		lo := r.IntN(5)
		hi := lo + r.IntN(5)
		tags = append(tags, fmt.Sprintf(`minLength:"%d" maxLength:"%d" pattern:"^[a-c]*$"`, lo, hi))
		f.valid = strings.Repeat("b", lo+r.IntN(hi-lo+1))
		f.invalid = append(f.invalid, strings.Repeat("a", hi+1), "z"+strings.Repeat("a", lo))
		if lo > 0 {
			f.invalid = append(f.invalid, strings.Repeat("c", lo-1))
		}
	}
	if r.IntN(3) == 0 {
		tags = append(tags, `default:"dflt"`)
		f.defaultJSON = `"dflt"`
	}
	f.tag = strings.Join(tags, " ")
	return f
}

// genSliceField makes a slice of e's type whose items follow e's tags,
// with item-count tags.
func genSliceField(r *rand.Rand, e genField) genField {
	f := genField{typ: reflect.SliceOf(e.typ), tag: e.tag}
	if e.defaultJSON != "" {
		// default is the whole slice's.
		f.tag = strings.Replace(f.tag, `default:"`, `x:"`, 1)
	}
	lo, hi := r.IntN(3), 0
	hi = lo + 1 + r.IntN(3)
	f.tag += fmt.Sprintf(` minItems:"%d" maxItems:"%d"`, lo, hi)
	n := lo + r.IntN(hi-lo+1)
	valid := make([]any, n)
	for i := range valid {
		valid[i] = e.valid
	}
	if n > 1 && r.IntN(2) == 0 {
		f.tag += ` uniqueItems:"true"`
		valid = valid[:1]
		if lo > 1 {
			f.tag = strings.Replace(f.tag, fmt.Sprintf(`minItems:"%d"`, lo), `minItems:"1"`, 1)
		}
		f.invalid = append(f.invalid, []any{e.valid, e.valid})
	}
	f.valid = valid
	long := make([]any, hi+1)
	for i := range long {
		long[i] = e.valid
	}
	if !strings.Contains(f.tag, "uniqueItems") {
		f.invalid = append(f.invalid, long)
	}
	if lo > 0 && !strings.Contains(f.tag, "uniqueItems") {
		f.invalid = append(f.invalid, []any{})
	}
	for _, bad := range e.invalid {
		if lo == 0 {
			f.invalid = append(f.invalid, []any{bad})
		} else {
			items := make([]any, lo)
			for i := range items {
				items[i] = e.valid
			}
			items[0] = bad
			if len(items) > 1 && strings.Contains(f.tag, "uniqueItems") {
				items = items[:1]
			}
			f.invalid = append(f.invalid, items)
		}
	}
	return f
}

func genTaggedField(r *rand.Rand) genField {
	numeric := []reflect.Type{reflect.TypeFor[int](), reflect.TypeFor[int64](), reflect.TypeFor[uint16](), reflect.TypeFor[float64]()}
	switch r.IntN(6) {
	case 0, 1:
		return genNumberField(r, numeric[r.IntN(len(numeric))])
	case 2:
		return genStringField(r)
	case 3:
		f := genField{typ: reflect.TypeFor[bool](), tag: `enum:"true"`, valid: true, invalid: []any{false}}
		return f
	case 4:
		f := genNumberField(r, reflect.TypeFor[int]())
		if r.IntN(2) == 0 {
			f = genStringField(r)
		}
		f.typ = reflect.PointerTo(f.typ)
		if r.IntN(2) == 0 {
			f.tag += ` nullable:"true"`
			f.nullable = true
		}
		return f
	default:
		if r.IntN(2) == 0 {
			return genSliceField(r, genStringField(r))
		}
		return genSliceField(r, genNumberField(r, numeric[r.IntN(len(numeric))]))
	}
}

// SchemaFor writes a field's tags into its schema as values of the
// field's type, and the host enforces them: for generated struct types
// with generated tags, a value every tag admits validates and decodes into
// the type, and a value that breaks one tag is refused by the host's own
// validator. WASMAGENT_SCHEMATAGS_N sets the number of types (default
// 150), WASMAGENT_SCHEMATAGS_SEED the seed.
func TestSchemaTagsAreEnforced(t *testing.T) {
	n, seed := hosttest.EnvInt(t, "WASMAGENT_SCHEMATAGS_N", 150), hosttest.EnvInt(t, "WASMAGENT_SCHEMATAGS_SEED", 1)
	for i := range n {
		r := rand.New(rand.NewPCG(uint64(seed), uint64(i)))
		fields := make([]genField, 1+r.IntN(3))
		var sfs []reflect.StructField
		for j := range fields {
			fields[j] = genTaggedField(r)
			name := fmt.Sprintf("f%d", j)
			sfs = append(sfs, reflect.StructField{Name: "F" + strconv.Itoa(j), Type: fields[j].typ,
				Tag: reflect.StructTag(`json:"` + name + `" ` + fields[j].tag)})
		}
		typ := reflect.StructOf(sfs)
		replay := fmt.Sprintf("case %d (replay: WASMAGENT_SCHEMATAGS_SEED=%d, and N=%d), type %v", i, seed, i+1, typ)
		s, err := schemaOf(typ, map[reflect.Type]bool{})
		if err != nil {
			t.Fatalf("%s: %v", replay, err)
		}
		raw, _ := json.Marshal(s)
		schema, err := host.CompileSchema(raw)
		if err != nil {
			t.Fatalf("%s: schema %s does not compile: %v", replay, raw, err)
		}
		valid := map[string]any{}
		for j, f := range fields {
			valid[fmt.Sprintf("f%d", j)] = f.valid
			if f.defaultJSON != "" {
				var props map[string]map[string]json.RawMessage
				json.Unmarshal(mustJSON(s["properties"]), &props)
				if got := string(props[fmt.Sprintf("f%d", j)]["default"]); got != f.defaultJSON {
					t.Fatalf("%s: default is %s, want %s (schema %s)", replay, got, f.defaultJSON, raw)
				}
			}
		}
		args, err := schema.ValidateArguments("t", mustJSON(valid))
		if err != nil {
			t.Fatalf("%s: schema %s refuses %s, which every tag admits: %v", replay, raw, mustJSON(valid), err)
		}
		if err := DecodeArgs(args, reflect.New(typ).Interface()); err != nil {
			t.Fatalf("%s: %s does not decode: %v", replay, args, err)
		}
		for j, f := range fields {
			if !f.nullable {
				continue
			}
			call := map[string]any{}
			for k, v := range valid {
				call[k] = v
			}
			call[fmt.Sprintf("f%d", j)] = nil
			args, err := schema.ValidateArguments("t", mustJSON(call))
			if err != nil {
				t.Fatalf("%s: schema %s refuses a null for the nullable f%d: %v", replay, raw, j, err)
			}
			v := reflect.New(typ)
			if err := DecodeArgs(args, v.Interface()); err != nil || !v.Elem().Field(j).IsNil() {
				t.Fatalf("%s: a null for the nullable f%d arrives as %s (%v), not nil", replay, j, args, err)
			}
		}
		for j, f := range fields {
			for _, bad := range f.invalid {
				call := map[string]any{}
				for k, v := range valid {
					call[k] = v
				}
				call[fmt.Sprintf("f%d", j)] = bad
				if _, err := schema.ValidateArguments("t", mustJSON(call)); err == nil {
					t.Fatalf("%s: schema %s admits %s, which breaks the tags %s", replay, raw, mustJSON(call), f.tag)
				}
			}
		}
	}
}

func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// A tag the field cannot carry, or whose value does not parse, makes
// SchemaFor fail with the field, the tag and what is wrong, so describe
// fails and the host refuses the plugin at load: never a schema that
// refuses every call or a constraint silently dropped.
func TestSchemaTagMistakes(t *testing.T) {
	for _, c := range []struct {
		field reflect.StructField
		want  string
	}{
		{reflect.StructField{Name: "N", Type: reflect.TypeFor[int](), Tag: `minLength:"2"`}, `field N: tag minLength:"2": minLength is for strings, and this is an integer`},
		{reflect.StructField{Name: "S", Type: reflect.TypeFor[string](), Tag: `minimum:"2"`}, `minimum is for numbers, and this is a string`},
		{reflect.StructField{Name: "S", Type: reflect.TypeFor[string](), Tag: `maxItems:"2"`}, `maxItems is for arrays, and this is a string`},
		{reflect.StructField{Name: "N", Type: reflect.TypeFor[int](), Tag: `minimum:"one"`}, `tag minimum:"one": not a number`},
		{reflect.StructField{Name: "N", Type: reflect.TypeFor[float64](), Tag: `maximum:"1e999"`}, `not a number`},
		{reflect.StructField{Name: "N", Type: reflect.TypeFor[int](), Tag: `enum:"1,two"`}, `"two" is not a value of type int`},
		{reflect.StructField{Name: "N", Type: reflect.TypeFor[int8](), Tag: `enum:"1,300"`}, `"300" is not a value of type int8`},
		{reflect.StructField{Name: "B", Type: reflect.TypeFor[bool](), Tag: `default:"yes"`}, `"yes" is not a value of type bool`},
		{reflect.StructField{Name: "L", Type: reflect.TypeFor[[]int](), Tag: `enum:"a"`}, `"a" is not a value of type int`},
		{reflect.StructField{Name: "L", Type: reflect.TypeFor[[]int](), Tag: `uniqueItems:"yes"`}, `not true or false`},
		{reflect.StructField{Name: "S", Type: reflect.TypeFor[string](), Tag: `maxLength:"-1"`}, `not a whole number from 0`},
		{reflect.StructField{Name: "N", Type: reflect.TypeFor[int](), Tag: `multipleOf:"0"`}, `not a number above 0`},
		{reflect.StructField{Name: "U", Type: reflect.TypeFor[uint](), Tag: `minimum:"-3"`}, `the type uint holds no negative number`},
		{reflect.StructField{Name: "P", Type: reflect.TypeFor[*int](), Tag: `nullable:"yes"`}, `tag nullable:"yes": not true or false`},
	} {
		c.field.Tag = `json:"x" ` + c.field.Tag
		_, err := schemaOf(reflect.StructOf([]reflect.StructField{c.field}), map[reflect.Type]bool{})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %v `%s`: err = %v, want %q", c.field.Name, c.field.Type, c.field.Tag, err, c.want)
		}
	}
}

// Whatever a schema tag says, SchemaFor either refuses it with an error or
// writes a schema the host compiles; it never panics.
func FuzzSchemaTags(f *testing.F) {
	f.Add(0, "minimum", "1")
	f.Add(1, "enum", "a,b")
	f.Add(2, "maxItems", "3")
	f.Add(3, "default", `{"x":1}`)
	f.Add(0, "pattern", "^[")
	types := []reflect.Type{reflect.TypeFor[int](), reflect.TypeFor[string](), reflect.TypeFor[[]uint8](),
		reflect.TypeFor[map[string]bool](), reflect.TypeFor[*float32](), reflect.TypeFor[[]*int](), reflect.TypeFor[any](),
		reflect.TypeFor[json.RawMessage](), reflect.TypeFor[[2]string]()}
	f.Fuzz(func(t *testing.T, which int, name, value string) {
		typ := types[uint(which)%uint(len(types))]
		tag := reflect.StructTag(`json:"x" ` + name + `:` + strconv.Quote(value))
		if name == "" || strings.ContainsAny(name, " :\"\x00") || !utf8.ValidString(value) {
			return
		}
		s, err := schemaOf(reflect.StructOf([]reflect.StructField{{Name: "X", Type: typ, Tag: tag}}), map[reflect.Type]bool{})
		if err != nil {
			return
		}
		raw, err := json.Marshal(s)
		if err != nil {
			t.Fatalf("%v `%s`: the schema does not encode: %v", typ, tag, err)
		}
		if name == "pattern" || name == "format" {
			return // the host's compiler judges these (its error names them)
		}
		if _, err := host.CompileSchema(raw); err != nil {
			t.Fatalf("%v `%s`: schema %s does not compile: %v", typ, tag, raw, err)
		}
	})
}
