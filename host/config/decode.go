package config

import (
	"encoding"
	"fmt"
	"maps"
	"math"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"time"
)

// decoder copies the TOML parser's generic tree (tables as map[string]any,
// arrays as []any or []map[string]any) into the typed File, by the fields'
// toml tags. Unlike decoding straight into the struct, it goes on after a
// problem, so that every wrong type and every unknown key of a file is
// reported at once, each under its indexed key path ("tool[0].grants.timeout").
type decoder struct {
	report func(key, msg string)
	bad    map[string]bool // keys whose value could not be decoded
}

// unmarshaler is a type that decodes its own generic TOML value (Size, Value).
type unmarshaler interface{ UnmarshalTOML(any) error }

var (
	unmarshalerType     = reflect.TypeFor[unmarshaler]()
	textUnmarshalerType = reflect.TypeFor[encoding.TextUnmarshaler]()
)

func (d *decoder) fail(key, format string, args ...any) {
	d.bad[key] = true
	d.report(key, fmt.Sprintf(format, args...))
}

// value decodes data, written at key, into rv (addressable).
func (d *decoder) value(key string, data any, rv reflect.Value) {
	if pt := rv.Addr().Type(); pt.Implements(unmarshalerType) {
		if err := rv.Addr().Interface().(unmarshaler).UnmarshalTOML(data); err != nil {
			d.fail(key, "%v", err)
		}
		return
	} else if pt.Implements(textUnmarshalerType) {
		text, ok := data.(string)
		if !ok {
			d.wrongType(key, `a string such as "30s"`, data)
			return
		}
		if err := rv.Addr().Interface().(encoding.TextUnmarshaler).UnmarshalText([]byte(text)); err != nil {
			d.fail(key, "%v", err)
		}
		return
	}
	switch rv.Kind() {
	case reflect.Pointer:
		v := reflect.New(rv.Type().Elem())
		if d.value(key, data, v.Elem()); !d.bad[key] {
			rv.Set(v)
		}
	case reflect.Struct:
		d.table(key, data, rv)
	case reflect.Map:
		d.mapping(key, data, rv)
	case reflect.Slice:
		d.slice(key, data, rv)
	case reflect.String:
		if s, ok := data.(string); ok {
			rv.SetString(s)
		} else {
			d.wrongType(key, "a string", data)
		}
	case reflect.Bool:
		if b, ok := data.(bool); ok {
			rv.SetBool(b)
		} else {
			d.wrongType(key, "true or false", data)
		}
	case reflect.Int, reflect.Int64:
		n, ok := data.(int64)
		switch {
		case !ok:
			d.wrongType(key, "an integer", data)
		case rv.OverflowInt(n):
			d.fail(key, "%d is too large", n)
		default:
			rv.SetInt(n)
		}
	case reflect.Float64:
		switch v := data.(type) {
		case float64:
			rv.SetFloat(v)
		case int64:
			rv.SetFloat(float64(v))
		default:
			d.wrongType(key, "a number", data)
		}
	default:
		// Only the types of File reach here; a new field of another kind
		// is a programming error caught by the tests.
		d.fail(key, "cannot decode into %s", rv.Type())
	}
}

func (d *decoder) wrongType(key, want string, data any) {
	d.fail(key, "want %s, not %s", want, describeValue(data))
}

// describeValue names a TOML value's type and shows it, short.
func describeValue(data any) string {
	switch v := data.(type) {
	case string:
		return fmt.Sprintf("the string %q", clip(v))
	case int64:
		return fmt.Sprintf("the integer %d", v)
	case float64:
		if math.IsInf(v, 0) || math.IsNaN(v) {
			return fmt.Sprintf("the float %v", v)
		}
		return fmt.Sprintf("the float %g", v)
	case bool:
		return fmt.Sprintf("%v", v)
	case time.Time:
		return "a date-time"
	case []any, []map[string]any:
		return "an array"
	case map[string]any:
		return "a table"
	}
	return fmt.Sprintf("a %T", data)
}

func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}

// table decodes a TOML table into a struct; keys with no field are unknown.
func (d *decoder) table(key string, data any, rv reflect.Value) {
	m, ok := data.(map[string]any)
	if str, isStr := data.(string); !ok && isStr && strings.HasSuffix(indexes.ReplaceAllString(key, ""), "grants.dirs") {
		// dirs = ["."]: a directory is a host path and where the
		// plugin sees it.
		if len(str) > 200 {
			str = clip(str)
		}
		d.fail(key, "want a table, not the string %q: a directory grant is { host = %q, guest = \"/work\" } (its path here, and the absolute path the plugin sees)", str, str)
		return
	}
	if !ok {
		d.wrongType(key, "a table", data)
		return
	}
	fields := map[string]reflect.Value{}
	collectFields(rv, fields)
	for _, k := range slices.Sorted(maps.Keys(m)) {
		sub := join(key, k)
		f, ok := fields[k]
		if !ok {
			hint := entryAlias(sub)
			if hint == "" {
				hint = foreign(sub)
			}
			if hint == "" {
				hint = suggest(sub)
			}
			d.report(sub, "unknown key"+hint)
			continue
		}
		d.value(sub, m[k], f)
	}
}

// collectFields maps the toml names of rv's fields to the fields, with the
// fields of embedded structs (Plugin in ToolPlugin) in line.
func collectFields(rv reflect.Value, out map[string]reflect.Value) {
	t := rv.Type()
	for i := range t.NumField() {
		f := t.Field(i)
		switch {
		case f.Anonymous && f.Type.Kind() == reflect.Struct:
			collectFields(rv.Field(i), out)
		case !f.IsExported():
		default:
			name, _, _ := strings.Cut(f.Tag.Get("toml"), ",")
			if name != "-" && name != "" {
				out[name] = rv.Field(i)
			}
		}
	}
}

func (d *decoder) mapping(key string, data any, rv reflect.Value) {
	m, ok := data.(map[string]any)
	if !ok {
		d.wrongType(key, "a table", data)
		return
	}
	out := reflect.MakeMapWithSize(rv.Type(), len(m))
	for _, k := range slices.Sorted(maps.Keys(m)) {
		v := reflect.New(rv.Type().Elem()).Elem()
		sub := join(key, k)
		if d.value(sub, m[k], v); !d.bad[sub] {
			out.SetMapIndex(reflect.ValueOf(k), v)
		}
	}
	rv.Set(out)
}

func (d *decoder) slice(key string, data any, rv reflect.Value) {
	var items []any
	switch v := data.(type) {
	case []any:
		items = v
	case []map[string]any:
		for _, m := range v {
			items = append(items, m)
		}
	case string:
		if rv.Type().Elem().Kind() == reflect.String && len(v) <= 200 {
			// hosts = "api.github.com" for hosts = ["api.github.com"].
			name := key[strings.LastIndex(key, ".")+1:]
			d.fail(key, "want an array, not the string %q: %s = [%q]", v, name, v)
			return
		}
		d.wrongType(key, "an array", data)
		return
	case map[string]any:
		if rv.Type().Elem().Kind() == reflect.Struct {
			// [tool] for [[tool]], dirs = { … } for dirs = [{ … }].
			header := indexes.ReplaceAllString(key, "")
			name := header[strings.LastIndex(header, ".")+1:]
			d.fail(key, "want an array of tables, not a table: [[%s]] (two brackets) starts each entry, or %s = [{ … }, { … }]", header, name)
			return
		}
		d.wrongType(key, "an array", data)
		return
	default:
		d.wrongType(key, "an array", data)
		return
	}
	out := reflect.MakeSlice(rv.Type(), len(items), len(items))
	for i, item := range items {
		d.value(fmt.Sprintf("%s[%d]", key, i), item, out.Index(i))
	}
	rv.Set(out)
}

// indexes are the array indexes of a key ("tool[0].grants.dirs[1]").
var indexes = regexp.MustCompile(`\[\d+\]`)

// entryAlias is, for a key of a [[tool]] or [[hook]] entry that names its
// file by another word (path, file, wasm, module, source, url), the key
// agent.toml has; else "". ("did you mean" by spelling answered path
// with "gate".)
func entryAlias(key string) string {
	entry, k, ok := strings.Cut(key, "].")
	if !ok || strings.Contains(k, ".") || !(strings.HasPrefix(entry, "tool[") || strings.HasPrefix(entry, "hook[")) {
		return ""
	}
	switch strings.ToLower(k) {
	case "path", "file", "wasm", "module", "source", "src", "url", "wasm_path", "plugin_path", "filename":
		return ` (the plugin's .wasm file is plugin = "…", relative to this file or absolute)`
	}
	return ""
}

func join(key, k string) string {
	if key == "" {
		return k
	}
	return key + "." + k
}
