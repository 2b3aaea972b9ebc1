package sdk

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
)

// SchemaFor returns the JSON Schema of the Go type A, which must be a
// struct (or a pointer to one), the way encoding/json encodes it:
//
//   - a field's name is its json tag's name; `json:"-"` fields are left out;
//   - a field is required unless it is a pointer or tagged omitempty or
//     omitzero;
//   - the tag `description:"…"` describes the field; `enum:"a,b,c"` lists
//     its allowed values, each read as a value of the field's type
//     (`enum:"1,2,4"` on an int is three integers);
//   - tags named after JSON Schema keywords constrain the field:
//     `minimum`, `maximum`, `exclusiveMinimum`, `exclusiveMaximum`,
//     `multipleOf` (numbers), `minLength`, `maxLength`, `pattern`, `format`
//     (strings), `minItems`, `maxItems`, `uniqueItems` (slices), and
//     `default` (a value of the field's type: JSON, or a string field's
//     text as it is; it tells the model what an absent field means, and
//     nothing fills it in). On a slice or array, enum and the number and
//     string keywords are about its elements (default is the whole
//     value). A tag on a field of a type it does not fit, or whose value
//     does not parse, is an error naming the field;
//   - `nullable:"true"` lets the field be null, and a null arrive as Go's
//     nil: without it the host's coercion (pi's) turns a null into the
//     type's zero value, so a pointer field a model sent null is a
//     pointer to 0 or "";
//   - objects allow no other properties; maps with string keys allow any;
//   - embedded structs' fields are promoted, as encoding/json does.
//
// Types with no schema (channels, functions, complex numbers, maps with
// non-string keys) are an error.
func SchemaFor[A any]() (json.RawMessage, error) {
	t := reflect.TypeFor[A]()
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return nil, fmt.Errorf("sdk: the arguments type %v is not a struct", t)
	}
	s, err := schemaOf(t, map[reflect.Type]bool{})
	if err != nil {
		return nil, fmt.Errorf("sdk: arguments type %v: %w", t, err)
	}
	return json.Marshal(s)
}

var rawMessageType = reflect.TypeFor[json.RawMessage]()

// isTime says whether t is time.Time, by name: a reflect.Type of
// time.Time would make the linker keep the time package's formatting and
// parsing (its MarshalJSON, String, GoString …) in every plugin, about
// 130 KB of Wasm code that a plugin without times never runs
// (RATIONALE.md, "Why is the Go SDK careful about what it links?").
func isTime(t reflect.Type) bool { return t.PkgPath() == "time" && t.Name() == "Time" }

func schemaOf(t reflect.Type, seen map[reflect.Type]bool) (map[string]any, error) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch {
	case t == rawMessageType:
		return map[string]any{}, nil
	case isTime(t):
		return map[string]any{"type": "string", "format": "date-time"}, nil
	}
	switch t.Kind() {
	case reflect.String:
		return map[string]any{"type": "string"}, nil
	case reflect.Bool:
		return map[string]any{"type": "boolean"}, nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return map[string]any{"type": "integer"}, nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return map[string]any{"type": "integer", "minimum": 0}, nil
	case reflect.Float32, reflect.Float64:
		return map[string]any{"type": "number"}, nil
	case reflect.Interface:
		return map[string]any{}, nil
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 && t.Kind() == reflect.Slice {
			return map[string]any{"type": "string", "contentEncoding": "base64"}, nil
		}
		items, err := schemaOf(t.Elem(), seen)
		if err != nil {
			return nil, err
		}
		s := map[string]any{"type": "array", "items": items}
		if t.Kind() == reflect.Array {
			s["minItems"], s["maxItems"] = t.Len(), t.Len()
		}
		return s, nil
	case reflect.Map:
		if t.Key().Kind() != reflect.String {
			return nil, fmt.Errorf("map key type %v is not a string", t.Key())
		}
		vals, err := schemaOf(t.Elem(), seen)
		if err != nil {
			return nil, err
		}
		return map[string]any{"type": "object", "additionalProperties": vals}, nil
	case reflect.Struct:
		if seen[t] {
			return nil, fmt.Errorf("type %v refers to itself", t)
		}
		seen[t] = true
		defer delete(seen, t)
		props := map[string]any{}
		required := []string{}
		if err := structFields(t, seen, props, &required); err != nil {
			return nil, err
		}
		s := map[string]any{"type": "object", "properties": props, "additionalProperties": false}
		if len(required) > 0 {
			s["required"] = required
		}
		return s, nil
	}
	return nil, fmt.Errorf("type %v has no JSON Schema", t)
}

func structFields(t reflect.Type, seen map[reflect.Type]bool, props map[string]any, required *[]string) error {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if f.Anonymous && name == "" {
			et := f.Type
			if et.Kind() == reflect.Pointer {
				et = et.Elem()
			}
			if et.Kind() == reflect.Struct {
				if err := structFields(et, seen, props, required); err != nil {
					return err
				}
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		s, err := schemaOf(f.Type, seen)
		if err != nil {
			return fmt.Errorf("field %s: %w", f.Name, err)
		}
		if d := f.Tag.Get("description"); d != "" {
			s["description"] = d
		}
		if err := applySchemaTags(f, s); err != nil {
			return fmt.Errorf("field %s: %w", f.Name, err)
		}
		props[name] = s
		optional := f.Type.Kind() == reflect.Pointer || strings.Contains(","+opts+",", ",omitempty,") || strings.Contains(","+opts+",", ",omitzero,")
		if !optional {
			*required = append(*required, name)
		}
	}
	return nil
}
