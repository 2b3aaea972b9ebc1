package sdk

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
)

// A schema tag is a struct tag named after a JSON Schema keyword
// (`minimum:"1"`), which SchemaFor writes into the field's schema. Each
// applies to values of one JSON type; on a slice or array field, the
// keywords about its elements apply to its items.
type schemaTag struct {
	name string
	// applies is the JSON type the keyword constrains: "number" (integers
	// too), "string", "array", or "" for any.
	applies string
	// whole: on an array it is about the array (default), not its items.
	whole bool
	// parse turns the tag's text into the keyword's value, for a field
	// (or element) of Go type t.
	parse func(text string, t reflect.Type) (any, error)
}

// schemaTags are the tags SchemaFor reads beside description, in the
// order it checks them.
var schemaTags = []schemaTag{
	{"enum", "", false, parseEnum},
	{"default", "", true, parseValue},
	{"minimum", "number", false, parseNumber},
	{"maximum", "number", false, parseNumber},
	{"exclusiveMinimum", "number", false, parseNumber},
	{"exclusiveMaximum", "number", false, parseNumber},
	{"multipleOf", "number", false, parsePositive},
	{"minLength", "string", false, parseCount},
	{"maxLength", "string", false, parseCount},
	{"pattern", "string", false, parseString},
	{"format", "string", false, parseString},
	{"minItems", "array", true, parseCount},
	{"maxItems", "array", true, parseCount},
	{"uniqueItems", "array", true, parseBool},
}

// applySchemaTags writes the schema tags of field f into s, its schema.
func applySchemaTags(f reflect.StructField, s map[string]any) error {
	for _, tag := range schemaTags {
		text, ok := f.Tag.Lookup(tag.name)
		if !ok {
			continue
		}
		target, t := s, f.Type
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		if !tag.whole && s["type"] == "array" {
			// About the elements: enum:"a,b" on a []string lists what
			// each may be.
			target, _ = s["items"].(map[string]any)
			t = t.Elem()
			for t.Kind() == reflect.Pointer {
				t = t.Elem()
			}
		}
		if typ, _ := target["type"].(string); tag.applies != "" && typ != "" && typ != tag.applies &&
			!(tag.applies == "number" && typ == "integer") {
			return fmt.Errorf("tag %s:%q: %s is for %ss, and this is %s", tag.name, text, tag.name, tag.applies, articled(typ))
		}
		v, err := tag.parse(text, t)
		if err != nil {
			return fmt.Errorf("tag %s:%q: %w", tag.name, text, err)
		}
		if tag.name == "minimum" && target["minimum"] != nil && v.(json.Number)[0] == '-' {
			return fmt.Errorf("tag %s:%q: the type %v holds no negative number", tag.name, text, t)
		}
		target[tag.name] = v
	}
	return applyNullable(f, s)
}

// applyNullable reads the tag nullable:"true": the field may be null, and
// a null stays null (a nil pointer, slice or map in Go). Without it the
// host's coercion (pi's) turns a null into the type's zero value, and a
// pointer field that a model sent null arrives as a pointer to 0 or "".
func applyNullable(f reflect.StructField, s map[string]any) error {
	text, ok := f.Tag.Lookup("nullable")
	if !ok {
		return nil
	}
	v, err := parseBool(text, nil)
	if err != nil {
		return fmt.Errorf("tag nullable:%q: %w", text, err)
	}
	typ, ok := s["type"].(string)
	if !v.(bool) || !ok {
		return nil // a schema of no type admits null already
	}
	s["type"] = []any{typ, "null"}
	if enum, ok := s["enum"].([]any); ok {
		s["enum"] = append(enum, nil)
	}
	return nil
}

func articled(jsonType string) string {
	if jsonType == "array" || jsonType == "integer" || jsonType == "object" {
		return "an " + jsonType
	}
	return "a " + jsonType
}

// parseEnum splits the tag at commas and reads each value as one of t.
func parseEnum(text string, t reflect.Type) (any, error) {
	vals := []any{}
	for _, v := range strings.Split(text, ",") {
		x, err := parseValue(v, t)
		if err != nil {
			return nil, err
		}
		vals = append(vals, x)
	}
	return vals, nil
}

// parseValue reads text as a value of Go type t, as encoding/json would
// decode it from arguments: a string field's text is the string itself;
// anything else's is JSON.
func parseValue(text string, t reflect.Type) (any, error) {
	if t.Kind() == reflect.String {
		return text, nil
	}
	p := reflect.New(t)
	if err := json.Unmarshal([]byte(text), p.Interface()); err != nil {
		return nil, fmt.Errorf("%q is not a value of type %v", text, t)
	}
	return json.RawMessage(strings.TrimSpace(text)), nil
}

// parseNumber reads a finite number, kept as written.
func parseNumber(text string, _ reflect.Type) (any, error) {
	f, err := strconv.ParseFloat(text, 64)
	if err != nil || math.IsInf(f, 0) || !json.Valid([]byte(text)) {
		return nil, fmt.Errorf("not a number")
	}
	return json.Number(text), nil
}

func parsePositive(text string, t reflect.Type) (any, error) {
	v, err := parseNumber(text, t)
	if err != nil {
		return nil, err
	}
	if f, _ := strconv.ParseFloat(text, 64); f <= 0 {
		return nil, fmt.Errorf("not a number above 0")
	}
	return v, nil
}

// parseCount reads a length or count: an integer from 0.
func parseCount(text string, _ reflect.Type) (any, error) {
	n, err := strconv.ParseUint(text, 10, 31)
	if err != nil {
		return nil, fmt.Errorf("not a whole number from 0")
	}
	return n, nil
}

func parseString(text string, _ reflect.Type) (any, error) { return text, nil }

func parseBool(text string, _ reflect.Type) (any, error) {
	switch text {
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	return nil, fmt.Errorf("not true or false")
}
