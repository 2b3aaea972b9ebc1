package host

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"unsafe"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"

	"github.com/wasmagent/wasmagent/host/internal/jsonread"
)

// Schema is a compiled JSON Schema for tool arguments.
type Schema struct {
	raw   map[string]any // the decoded schema, walked by the coercion pass
	sch   *jsonschema.Schema
	isNot *jsonschema.Schema // {"not": sch}: validity without the error tree (Schema.valid)

	branchMu sync.Mutex
	branches map[unsafe.Pointer]*Schema // compiled union branches of raw (Schema.branch)
}

// schemaCache keeps compiled schemas by their text ("strict:" or "pi:",
// then the schema's bytes): the same tool loaded again (a /reload, a
// serve session, an MCP server listing its tools again) does not compile
// its schema again. It holds at most maxSchemaCacheBytes of schema text,
// and past that starts again empty: a long-running process that meets
// ever new schemas (an MCP server that changes its tools, a plugin
// rebuilt many times) kept every one it had compiled. A Schema already
// handed out stays valid.
var schemaCache = struct {
	sync.Mutex
	m     map[string]*Schema
	bytes int
}{m: map[string]*Schema{}}

// maxSchemaCacheBytes bounds the schema text schemaCache holds.
var maxSchemaCacheBytes = 16 << 20

func cachedSchema(key string) *Schema {
	schemaCache.Lock()
	defer schemaCache.Unlock()
	return schemaCache.m[key]
}

func cacheSchema(key string, s *Schema) {
	schemaCache.Lock()
	defer schemaCache.Unlock()
	if _, ok := schemaCache.m[key]; ok || len(key) > maxSchemaCacheBytes {
		return
	}
	if schemaCache.bytes+len(key) > maxSchemaCacheBytes {
		schemaCache.m, schemaCache.bytes = map[string]*Schema{}, 0
	}
	schemaCache.m[key] = s
	schemaCache.bytes += len(key)
}

// CompileSchema compiles a tool's parameter schema for a check at load:
// it refuses a schema that the JSON Schema meta-schema of its draft
// (2020-12 unless it names another) refuses, such as a keyword of the
// wrong type or an unknown type name, so that a plugin's author hears of
// it. The Schema it returns validates as the loop does, as pi's validator
// reads the schema (docs/loop.md 6.4.3), which is more lenient: the loop
// itself compiles with compileForCall, so that a tool whose schema only
// pi's reading takes (an MCP server's, say) runs as in pi. An empty
// schema means any object. No reference is ever loaded from outside the
// schema itself.
func CompileSchema(params json.RawMessage) (*Schema, error) {
	return compileSchema(params, true)
}

// compileForCall compiles a schema as pi's validator reads it, refusing
// only what no reading can validate with (not JSON, too large, a pattern
// RE2 cannot run, a reference that leads nowhere).
func compileForCall(params json.RawMessage) (*Schema, error) {
	return compileSchema(params, false)
}

func compileSchema(params json.RawMessage, strict bool) (*Schema, error) {
	if len(bytes.TrimSpace(params)) == 0 {
		params = json.RawMessage(`{"type":"object"}`)
	}
	key := "pi:" + string(params)
	if strict {
		key = "strict:" + string(params)
	}
	if s := cachedSchema(key); s != nil {
		return s, nil
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(params))
	if err != nil {
		return nil, fmt.Errorf("parameters schema is not JSON: %w", err)
	}
	if n := schemaObjects(doc, MaxSchemaObjects); n > MaxSchemaObjects {
		return nil, fmt.Errorf("parameters schema: more than %d objects (host.MaxSchemaObjects)", MaxSchemaObjects)
	}
	if jsonread.NestedOver(params, MaxSchemaDepth) {
		return nil, fmt.Errorf("parameters schema: nested more than %d deep (host.MaxSchemaDepth)", MaxSchemaDepth)
	}
	doc, bad := boundNumbers(doc)
	if bad != "" {
		return nil, fmt.Errorf("parameters schema: number %.40s does not fit a 64-bit float", bad)
	}
	if strict {
		if err := checkMetaSchema(doc); err != nil {
			return nil, fmt.Errorf("parameters schema: %w", err)
		}
	}
	sch, isNot, err := compileDoc(doc)
	if err != nil {
		return nil, fmt.Errorf("parameters schema: %w", err)
	}
	raw, _ := doc.(map[string]any)
	s := &Schema{raw: raw, sch: sch, isNot: isNot}
	cacheSchema(key, s)
	return s, nil
}

// MaxSchemaObjects bounds the JSON objects of a parameter schema. The
// validator's compiler is quadratic in its subschemas (10,000 properties
// compile in 1.5 s, 20,000 in 7 s, the 330,000 of an 8 MiB description in
// about half an hour), and a schema comes from a plugin or an MCP server.
const MaxSchemaObjects = 5000

// MaxSchemaDepth bounds how deep a parameter schema nests objects and
// arrays. Within MaxSchemaObjects, depth alone is dear: the compiler's
// work grows with the square of it and coercion's first pass over
// nested unions with its cube (2400 nested anyOf, 100 KB, compiled in
// 2m23s, and one argument was not validated in the 3 minutes after;
// 200 of them took 10 s). A schema's depth is that of the arguments it
// describes (MaxArgumentDepth) and the unions around them.
const MaxSchemaDepth = 128

// schemaObjects counts the objects of a decoded JSON value, stopping once
// past limit.
func schemaObjects(v any, limit int) int {
	n := 0
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			n++
			for _, e := range x {
				if n > limit {
					return
				}
				walk(e)
			}
		case []any:
			for _, e := range x {
				if n > limit {
					return
				}
				walk(e)
			}
		}
	}
	walk(v)
	return n
}

// compileDoc compiles a decoded schema as pi's validator reads it
// (typeboxView, formats.go), and beside it {"not": schema} as
// a resource of its own (so that the schema's own references still
// resolve against itself): the validator checks "not" for validity alone,
// without building the error tree that made a failed check 10 to 30 times
// dearer. The validator is third-party code fed with what plugins and MCP
// servers describe: a panic in it is this schema's error, never the
// host's end.
func compileDoc(doc any) (sch, isNot *jsonschema.Schema, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("%w: %v", errValidatorPanic, p)
		}
	}()
	doc = typeboxView(doc) // what pi's validator reads (schemacompat.go)
	c := jsonschema.NewCompiler()
	registerFormats(c)
	c.RegisterVocabulary(typeboxVocabulary)
	c.AssertVocabs()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(noLoader{})
	c.UseRegexpEngine(jsRegexp) // patterns as JavaScript reads them (jsregexp.go)
	if err := c.AddResource("tool.json", doc); err != nil {
		return nil, nil, err
	}
	if err := c.AddResource("tool-not.json", map[string]any{"not": map[string]any{"$ref": "tool.json"}}); err != nil {
		return nil, nil, err
	}
	if sch, err = c.Compile("tool.json"); err != nil {
		return nil, nil, err
	}
	isNot, err = c.Compile("tool-not.json")
	return sch, isNot, err
}

// checkMetaSchema compiles doc as it is written, for CompileSchema's check:
// what its draft's meta-schema refuses, or RE2 cannot compile, is an
// error.
func checkMetaSchema(doc any) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("%w: %v", errValidatorPanic, p)
		}
	}()
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(noLoader{})
	if err := c.AddResource("tool.json", doc); err != nil {
		return err
	}
	_, err = c.Compile("tool.json")
	return err
}

// errValidatorPanic marks a panic of the schema validator (compileDoc,
// Schema.check), which the fuzz targets look for.
var errValidatorPanic = errors.New("the JSON Schema validator failed")

// check validates v against s, a validator panic being an error.
func (s *Schema) check(v any) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("%w: %v", errValidatorPanic, p)
		}
	}()
	return s.sch.Validate(v)
}

type noLoader struct{}

func (noLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("loading %s: schemas may not reference external documents", url)
}

// ValidateArguments decodes raw strictly, applies pi's coercion pass and
// validates the result against s. It returns the coerced arguments, or an
// error whose text is pi's "Validation failed for tool …" message. Its
// work is bounded by MaxValidationWork whatever the schema and raw.
func (s *Schema) ValidateArguments(toolName string, raw json.RawMessage) (json.RawMessage, error) {
	return s.validateArguments(toolName, raw, newWorkBudget())
}

func (s *Schema) validateArguments(toolName string, raw json.RawMessage, b *workBudget) (json.RawMessage, error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		raw = json.RawMessage(`{}`)
	}
	v, order, err := decodeOrdered(raw)
	if err != nil {
		return nil, validationError(toolName, []string{"root: " + err.Error()}, raw)
	}
	n := checks(s.sch, v, b.left) // the coercion walk outside unions, and the check after
	received := v
	if b.charge(n) && s.raw != nil {
		v = s.coerce(v, s.raw, b)
	}
	if b.over {
		return nil, validationError(toolName, []string{"root: " + b.overBudget("checking these arguments against the tool's schema")}, raw)
	}
	if !(isRecord(received) && isRecord(v)) && !jsSame(received, v) && !s.valid(v) {
		// pi-ai's validateToolArguments: arguments that are no object
		// (or array), changed by the coercion into a value the schema
		// refuses, are passed on as they came, unchecked.
		v = received
	} else if !s.valid(v) {
		if !b.charge(errorWork * n) {
			return nil, validationError(toolName, []string{"root: " + b.overBudget("listing how these arguments miss the tool's schema")}, raw)
		}
		if err := s.check(v); err != nil {
			return nil, validationError(toolName, errorLines(err), raw)
		}
	}
	out, err := encodeOrdered(v, order)
	if err != nil {
		return nil, validationError(toolName, []string{"root: " + err.Error()}, raw)
	}
	return out, nil
}

// isRecord is pi-ai's isRecord: an object or an array.
func isRecord(v any) bool {
	switch v.(type) {
	case map[string]any, []any:
		return true
	}
	return false
}

// jsSame is JavaScript's === between a decoded value and its coercion
// (records are the same only as the same map or slice, which coercion
// never makes of a value that is no record).
func jsSame(a, b any) bool {
	switch x := a.(type) {
	case json.Number:
		y, ok := b.(json.Number)
		if !ok {
			return false
		}
		fx, okx := jsonNumberValue(string(x))
		fy, oky := jsonNumberValue(string(y))
		return okx && oky && fx == fy
	case string, bool, nil:
		return a == b
	}
	return false
}

// valid reports whether v passes s, checking {"not": s} so that the
// validator stops at the first mismatch and builds no error tree. A
// validator panic is a failed check.
func (s *Schema) valid(v any) (ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	var ve *jsonschema.ValidationError
	if !errors.As(s.isNot.Validate(v), &ve) || len(ve.Causes) != 1 {
		return false
	}
	_, ok = ve.Causes[0].ErrorKind.(*kind.Not)
	return ok
}

func validationError(toolName string, lines []string, received []byte) error {
	list := "Unknown validation error"
	if len(lines) > 0 {
		list = "  - " + strings.Join(lines, "\n  - ")
	}
	return fmt.Errorf("Validation failed for tool %q:\n%s\n\nReceived arguments:\n%s", toolName, list, indentJSON(received))
}

// errorLines lists the leaf errors of a validation error as pi formats
// them: "path: message", the path dotted, "root" at the top, and for a
// missing property the property's own path.
func errorLines(err error) []string {
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return []string{"root: " + err.Error()}
	}
	var lines []string
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) > 0 {
			for _, c := range e.Causes {
				walk(c)
			}
			return
		}
		path := append([]string(nil), e.InstanceLocation...)
		if req, ok := e.ErrorKind.(*kind.Required); ok && len(req.Missing) > 0 {
			path = append(path, req.Missing[0])
		}
		p := strings.Join(path, ".")
		if p == "" {
			p = "root"
		}
		lines = append(lines, p+": "+errorText(e))
	}
	walk(ve)
	return lines
}

// errorText is the message of one leaf error without its location prefix.
func errorText(e *jsonschema.ValidationError) string {
	out := e.BasicOutput()
	if out.Error != nil {
		return out.Error.String()
	}
	for _, u := range out.Errors {
		if u.Error != nil {
			return u.Error.String()
		}
	}
	return e.Error()
}

// coerce is pi-ai's coercion pass for plain JSON Schemas (validation.js
// coerceWithJsonSchema): scalars are converted towards the declared type
// before validation, recursing into properties, additionalProperties,
// items, and the anyOf/oneOf/allOf branches.
func (s *Schema) coerce(v any, schema map[string]any, b *workBudget) any {
	if b.over {
		return v
	}
	b.coerced++
	if all, ok := schema["allOf"].([]any); ok {
		for _, sub := range all {
			if m, ok := sub.(map[string]any); ok {
				v = s.coerce(v, m, b)
			}
		}
	}
	for _, kw := range []string{"anyOf", "oneOf"} {
		if branches, ok := schema[kw].([]any); ok {
			v = s.coerceUnion(v, branches, b)
		}
	}
	types := schemaTypes(schema)
	unionHit := len(types) > 1 && anyTypeMatches(v, types)
	if len(types) > 0 && !unionHit {
		for _, t := range types {
			if c, changed := coerceScalar(v, t); changed {
				v = c
				break
			}
		}
	}
	if obj, ok := v.(map[string]any); ok && contains(types, "object") {
		s.coerceObject(obj, schema, b)
	}
	if arr, ok := v.([]any); ok && contains(types, "array") {
		s.coerceArray(arr, schema, b)
	}
	return v
}

// coerceUnion tries the branches in order on a copy of v each, keeping
// the first copy the branch accepts. The copy, its coercion and its check
// are charged to b before they are done; a branch that does not compile on
// its own accepts nothing, so its copy is not even made.
func (s *Schema) coerceUnion(v any, branches []any, b *workBudget) any {
	nodes := -1
	for _, br := range branches {
		m, ok := br.(map[string]any)
		if !ok {
			continue
		}
		sub := s.branch(m)
		if sub == nil {
			continue
		}
		if nodes < 0 {
			nodes = countNodes(v)
		}
		if !b.charge(callWork+nodes) || !b.charge(checks(sub.sch, v, b.left)) {
			return v
		}
		candidate := s.coerce(deepCopy(v), m, b)
		if !b.over && sub.valid(candidate) {
			return candidate
		}
	}
	return v
}

func (s *Schema) coerceObject(obj map[string]any, schema map[string]any, b *workBudget) {
	props, _ := schema["properties"].(map[string]any)
	for k, ps := range props {
		if val, present := obj[k]; present {
			if m, ok := ps.(map[string]any); ok {
				obj[k] = s.coerce(val, m, b)
			}
		}
	}
	extra, ok := schema["additionalProperties"].(map[string]any)
	if !ok {
		return
	}
	for k, val := range obj {
		if _, defined := props[k]; !defined {
			obj[k] = s.coerce(val, extra, b)
		}
	}
}

func (s *Schema) coerceArray(arr []any, schema map[string]any, b *workBudget) {
	switch items := schema["items"].(type) {
	case []any:
		for i := range arr {
			if i < len(items) {
				if m, ok := items[i].(map[string]any); ok {
					arr[i] = s.coerce(arr[i], m, b)
				}
			}
		}
	case map[string]any:
		for i := range arr {
			arr[i] = s.coerce(arr[i], items, b)
		}
	}
}

// branch is the union branch m of s.raw compiled on its own (nil if it
// does not compile so), compiled once per Schema: compiling it for every
// value coerced made an argument of 200 short strings against the items
// of a 750 KB schema cost 14 s of host CPU.
func (s *Schema) branch(m map[string]any) *Schema {
	key := reflect.ValueOf(m).UnsafePointer() // s.raw keeps m alive
	s.branchMu.Lock()
	defer s.branchMu.Unlock()
	if sub, ok := s.branches[key]; ok {
		return sub
	}
	var sub *Schema
	if raw, err := json.Marshal(m); err == nil {
		sub, _ = compileForCall(raw)
	}
	if s.branches == nil {
		s.branches = map[unsafe.Pointer]*Schema{}
	}
	s.branches[key] = sub
	return sub
}

func schemaTypes(schema map[string]any) []string {
	switch t := schema["type"].(type) {
	case string:
		return []string{t}
	case []any:
		var out []string
		for _, x := range t {
			if s, ok := x.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

func anyTypeMatches(v any, types []string) bool {
	for _, t := range types {
		if matchesType(v, t) {
			return true
		}
	}
	return false
}

func matchesType(v any, t string) bool {
	switch t {
	case "number":
		_, ok := v.(json.Number)
		return ok
	case "integer":
		n, ok := v.(json.Number)
		return ok && isIntegral(n)
	case "boolean":
		_, ok := v.(bool)
		return ok
	case "string":
		_, ok := v.(string)
		return ok
	case "null":
		return v == nil
	case "array":
		_, ok := v.([]any)
		return ok
	case "object":
		_, ok := v.(map[string]any)
		return ok
	}
	return false
}

// isIntegral is Number.isInteger of the value JSON.parse gives n.
func isIntegral(n json.Number) bool {
	f, ok := jsonNumberValue(string(n))
	return ok && f == math.Trunc(f) && !math.IsInf(f, 0)
}

// jsonEquals reports whether n, as JSON.parse reads it, is === want.
func jsonEquals(n json.Number, want float64) bool {
	f, ok := jsonNumberValue(string(n))
	return ok && f == want
}

// coerceScalar converts v towards type t as pi-ai's coercePrimitiveByType
// does, with JavaScript's Number() and String() (jsnumber.go), reporting
// whether it changed anything.
func coerceScalar(v any, t string) (any, bool) {
	switch t {
	case "number", "integer":
		switch x := v.(type) {
		case nil:
			return json.Number("0"), true
		case bool:
			if x {
				return json.Number("1"), true
			}
			return json.Number("0"), true
		case string:
			if jsTrim(x) == "" {
				return v, false
			}
			f := jsStringToNumber(x)
			if math.IsInf(f, 0) || math.IsNaN(f) {
				return v, false
			}
			if t == "integer" && f != math.Trunc(f) {
				return v, false
			}
			return json.Number(jsNumberToString(f)), true
		}
	case "boolean":
		switch x := v.(type) {
		case nil:
			return false, true
		case string:
			if x == "true" {
				return true, true
			}
			if x == "false" {
				return false, true
			}
		case json.Number:
			if jsonEquals(x, 1) {
				return true, true
			}
			if jsonEquals(x, 0) {
				return false, true
			}
		}
	case "string":
		switch x := v.(type) {
		case nil:
			return "", true
		case bool:
			return strconv.FormatBool(x), true
		case json.Number:
			if f, ok := jsonNumberValue(string(x)); ok {
				return jsNumberToString(f), true
			}
			return string(x), true
		}
	case "null":
		switch x := v.(type) {
		case string:
			if x == "" {
				return nil, true
			}
		case bool:
			if !x {
				return nil, true
			}
		case json.Number:
			if jsonEquals(x, 0) {
				return nil, true
			}
		}
	}
	return v, false
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func deepCopy(v any) any {
	switch x := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, val := range x {
			m[k] = deepCopy(val)
		}
		return m
	case []any:
		a := make([]any, len(x))
		for i, val := range x {
			a[i] = deepCopy(val)
		}
		return a
	}
	return v
}
