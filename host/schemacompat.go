package host

import (
	"encoding/json"
	"math"
	"math/big"
	"slices"
	"strconv"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
)

// typeboxView returns the schema that pi-ai 0.73.1's validator (TypeBox
// 1.4's checker) applies, written so that a draft 2020-12 validator
// applies the same (docs/loop.md 6.4.3):
//
//   - TypeBox reads draft-04 to 2020-12 keywords alike, whatever $schema
//     says: $schema is dropped (every schema is 2020-12 here), a tuple's
//     "items" list becomes "prefixItems" (and "additionalItems" the
//     "items" after them; "additionalItems" without a list means
//     nothing), and "dependencies" becomes "dependentRequired" and
//     "dependentSchemas";
//   - TypeBox skips a keyword whose value has the wrong type ("minimum":
//     "5", "exclusiveMinimum": true, "required": "a"), where the 2020-12
//     meta-schema refuses the whole schema: such a keyword is dropped;
//   - "multipleOf" is TypeBox's, with its tolerance of 1e-10
//     (typeboxMultipleOf), not exact arithmetic;
//   - type names it does not know match anything, JavaScript-only ones
//     (bigint, undefined…) no JSON value; duplicates in "type" and
//     "required" are dropped; a length or count that is not a whole
//     number is rounded the way the comparison it stands for rounds (a
//     string length is the exception: TypeBox compares a UTF-16 length
//     with twice the limit shifted as an int32, which no schema says;
//     whole numbers compare as code points all the same).
//
// doc is not modified.
func typeboxView(doc any) any {
	m, ok := doc.(map[string]any)
	if !ok {
		return doc
	}
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	delete(out, "$schema")
	var extra []any // schemas every value must also pass (allOf)

	// Subschemas first, so that what is moved below is already a view.
	for _, k := range []string{"additionalProperties", "additionalItems", "contains", "propertyNames", "not", "if", "then", "else",
		"unevaluatedProperties", "unevaluatedItems"} {
		if v, ok := out[k]; ok {
			if !isSchemaValue(v) {
				delete(out, k)
				continue
			}
			out[k] = typeboxView(v)
		}
	}
	for _, k := range []string{"properties", "patternProperties", "dependentSchemas"} {
		if v, ok := out[k]; ok {
			sub, ok := schemaMap(v)
			if !ok {
				delete(out, k)
				continue
			}
			out[k] = sub
		}
	}
	for _, k := range []string{"$defs", "definitions"} { // reached by $ref: each entry as a schema
		v, present := out[k]
		m, ok := v.(map[string]any)
		if !present {
			continue
		}
		if !ok {
			delete(out, k) // TypeBox never reads it as such
			continue
		}
		defs := make(map[string]any, len(m))
		for name, d := range m {
			if isSchemaValue(d) { // another value cannot be referred to as a schema
				defs[name] = typeboxView(d)
			}
		}
		out[k] = defs
	}
	for _, k := range []string{"allOf", "anyOf", "oneOf", "prefixItems"} {
		if v, ok := out[k]; ok {
			list, ok := schemaList(v)
			switch {
			case !ok:
				delete(out, k)
			case len(list) > 0:
				out[k] = list
			case k == "anyOf" || k == "oneOf": // no branch: nothing passes
				delete(out, k)
				extra = append(extra, false)
			default: // allOf [] and prefixItems []: no condition
				delete(out, k)
			}
		}
	}

	// items: a schema, or a list (a tuple, draft-07's form).
	if v, ok := out["items"]; ok {
		switch {
		case isSchemaValue(v):
			out["items"] = typeboxView(v)
			delete(out, "additionalItems") // only after a list
		default:
			list, ok := schemaList(v)
			delete(out, "items")
			if !ok {
				delete(out, "additionalItems")
				break
			}
			tuple := map[string]any{}
			if len(list) > 0 {
				tuple["prefixItems"] = list
			}
			if add, ok := out["additionalItems"]; ok {
				tuple["items"] = add
			}
			delete(out, "additionalItems")
			if _, both := out["prefixItems"]; both {
				extra = append(extra, tuple) // both lists apply, each from the first item
			} else {
				for k, v := range tuple {
					out[k] = v
				}
			}
		}
	} else {
		delete(out, "additionalItems")
	}

	// dependencies: lists of names are dependentRequired, schemas
	// dependentSchemas; merged into the 2020-12 keywords through allOf
	// where those are present too.
	if v, ok := out["dependencies"]; ok {
		delete(out, "dependencies")
		if deps, ok := v.(map[string]any); ok && validDependencies(deps) {
			req, schemas := map[string]any{}, map[string]any{}
			for name, d := range deps {
				if isSchemaValue(d) {
					schemas[name] = typeboxView(d)
				} else {
					req[name] = uniqueStrings(d.([]any))
				}
			}
			extra = append(extra, map[string]any{"dependentRequired": req, "dependentSchemas": schemas})
		}
	}
	if v, ok := out["dependentRequired"]; ok {
		deps, ok := v.(map[string]any)
		if !ok || !stringListsOnly(deps) {
			delete(out, "dependentRequired")
		} else {
			req := make(map[string]any, len(deps))
			for name, d := range deps {
				req[name] = uniqueStrings(d.([]any))
			}
			out["dependentRequired"] = req
		}
	}

	if v, ok := out["required"]; ok {
		list, ok := v.([]any)
		if !ok || !allStrings(list) {
			delete(out, "required")
		} else {
			out["required"] = uniqueStrings(list)
		}
	}
	if v, ok := out["type"]; ok {
		if t, keep, never := typeboxTypes(v); never {
			delete(out, "type")
			extra = append(extra, false)
		} else if keep {
			out["type"] = t
		} else {
			delete(out, "type")
		}
	}
	for _, k := range []string{"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"} {
		if _, ok := schemaNumber(out[k]); !ok {
			delete(out, k)
		}
	}
	if v, ok := out["multipleOf"]; ok { // checked as TypeBox does (typeboxMultipleOf)
		delete(out, "multipleOf")
		if d, ok := schemaNumber(v); ok {
			out[typeboxMultipleOfKey] = numberValue(d)
		}
	}
	// Lengths and counts: TypeBox compares with any number.
	for _, k := range []string{"minLength", "minItems", "minProperties", "minContains"} {
		if _, ok := out[k]; ok {
			if n, ok := schemaNumber(out[k]); ok && n > 0 {
				out[k] = numberValue(math.Ceil(n))
			} else if ok && k == "minContains" {
				out[k] = numberValue(0)
			} else {
				delete(out, k)
			}
		}
	}
	notOf := map[string]string{"maxLength": "string", "maxItems": "array", "maxProperties": "object"}
	for _, k := range []string{"maxLength", "maxItems", "maxProperties", "maxContains"} {
		if _, ok := out[k]; ok {
			n, ok := schemaNumber(out[k])
			switch {
			case !ok:
				delete(out, k)
			case n >= 0:
				out[k] = numberValue(math.Floor(n))
			case k == "maxContains":
				out[k] = numberValue(0)
			default: // no value of that type passes
				delete(out, k)
				extra = append(extra, map[string]any{"not": map[string]any{"type": notOf[k]}})
			}
		}
	}
	if _, ok := out["uniqueItems"].(bool); !ok {
		delete(out, "uniqueItems")
	}
	for _, k := range []string{"pattern", "format", "$ref"} {
		if _, ok := out[k].(string); !ok {
			delete(out, k)
		}
	}
	if _, ok := out["enum"].([]any); !ok {
		delete(out, "enum")
	}
	if len(extra) > 0 {
		all, _ := out["allOf"].([]any)
		out["allOf"] = append(slices.Clone(all), extra...)
	}
	return out
}

// typeboxTypes is the "type" keyword as TypeBox reads it: keep reports
// whether it is a condition at all (a name TypeBox does not know matches
// every value), never that no JSON value can match.
func typeboxTypes(v any) (t any, keep, never bool) {
	var names []any
	switch x := v.(type) {
	case string:
		names = []any{x}
	case []any:
		if !allStrings(x) {
			return nil, false, false
		}
		names = x
	default:
		return nil, false, false
	}
	var out []any
	for _, n := range names {
		switch n.(string) {
		case "object", "array", "boolean", "integer", "number", "null", "string":
			if !slices.Contains(out, n) {
				out = append(out, n)
			}
		case "bigint", "constructor", "function", "symbol", "undefined", "void":
			// no JSON value
		default:
			return nil, false, false // matches anything
		}
	}
	switch {
	case len(out) == 0:
		return nil, false, true
	case len(out) == 1:
		return out[0], true, false
	}
	return out, true, false
}

// schemaNumber is a schema's number (a json.Number as the schema was
// decoded, or a float64), as JavaScript reads it.
func schemaNumber(v any) (float64, bool) {
	switch x := v.(type) {
	case json.Number:
		return jsonNumberValue(string(x))
	case float64:
		return x, true
	}
	return 0, false
}

func numberValue(f float64) json.Number {
	return json.Number(strconv.FormatFloat(f, 'f', -1, 64))
}

func isSchemaValue(v any) bool {
	switch v.(type) {
	case map[string]any, bool:
		return true
	}
	return false
}

// schemaMap is a map of names to schemas, viewed; ok is false if any
// value is not a schema (TypeBox then skips the keyword).
func schemaMap(v any) (map[string]any, bool) {
	m, ok := v.(map[string]any)
	if !ok {
		return nil, false
	}
	out := make(map[string]any, len(m))
	for k, s := range m {
		if !isSchemaValue(s) {
			return nil, false
		}
		out[k] = typeboxView(s)
	}
	return out, true
}

func schemaList(v any) ([]any, bool) {
	list, ok := v.([]any)
	if !ok {
		return nil, false
	}
	out := make([]any, len(list))
	for i, s := range list {
		if !isSchemaValue(s) {
			return nil, false
		}
		out[i] = typeboxView(s)
	}
	return out, true
}

func validDependencies(deps map[string]any) bool {
	for _, d := range deps {
		if isSchemaValue(d) {
			continue
		}
		if list, ok := d.([]any); !ok || !allStrings(list) {
			return false
		}
	}
	return true
}

func stringListsOnly(deps map[string]any) bool {
	for _, d := range deps {
		if list, ok := d.([]any); !ok || !allStrings(list) {
			return false
		}
	}
	return true
}

func allStrings(list []any) bool {
	for _, x := range list {
		if _, ok := x.(string); !ok {
			return false
		}
	}
	return true
}

func uniqueStrings(list []any) []any {
	out := make([]any, 0, len(list))
	for _, x := range list {
		if !slices.Contains(out, x) {
			out = append(out, x)
		}
	}
	return out
}

// typeboxMultipleOfKey is the keyword "multipleOf" becomes in the view:
// the 2020-12 validator ignores it, typeboxVocabulary checks it.
const typeboxMultipleOfKey = "x-wasmagent-typebox-multipleOf"

// typeboxVocabulary is the keyword the view adds, for the compiler.
var typeboxVocabulary = &jsonschema.Vocabulary{
	URL: "urn:wasmagent:typebox",
	Compile: func(_ *jsonschema.CompilerContext, obj map[string]any) (jsonschema.SchemaExt, error) {
		d, ok := schemaNumber(obj[typeboxMultipleOfKey])
		if !ok {
			return nil, nil
		}
		return typeboxMultipleOf(d), nil
	},
}

// typeboxMultipleOf is TypeBox's IsMultipleOf: an integer passes any
// divisor whose inverse is an integer; otherwise the remainder (as
// JavaScript's %) must be within 1e-10 of 0 or of the divisor, so
// 0.30000000000000004 is a multiple of 0.1, and nothing of 0.
type typeboxMultipleOf float64

func (d typeboxMultipleOf) Validate(ctx *jsonschema.ValidatorContext, v any) {
	n, ok := v.(json.Number)
	if !ok {
		return
	}
	x, ok := jsonNumberValue(string(n))
	if !ok || isMultipleOf(x, float64(d)) {
		return
	}
	ctx.AddError(&kind.MultipleOf{Got: ratOf(x), Want: ratOf(float64(d))})
}

func isMultipleOf(x, d float64) bool {
	if x == math.Trunc(x) && !math.IsInf(x, 0) && math.Mod(1/d, 1) == 0 {
		return true
	}
	mod := math.Mod(x, d)
	return math.Min(math.Abs(mod), math.Min(math.Abs(mod-d), math.Abs(mod+d))) < 1e-10
}

// ratOf is f as a big.Rat (0 for an infinity, which no decoded number is).
func ratOf(f float64) *big.Rat {
	if r := new(big.Rat).SetFloat64(f); r != nil {
		return r
	}
	return new(big.Rat)
}
