package host

import (
	"fmt"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// MaxValidationWork bounds the work of one ValidateArguments call, in
// steps: a value node checked against one subschema, or copied for a union
// branch (a reference followed weighs refWork, a branch tried callWork, a
// string read whole by a keyword one step per stringWork bytes).
// The schema comes from a plugin or an MCP server, so within
// MaxSchemaObjects and MaxSchemaDepth it could still make one call cost
// minutes of host CPU, outside any plugin's deadline: a binary tree of
// anyOf 11 deep as an array's items cost 124 ms an element, 22 $ref
// definitions each an anyOf of two references to the next 2m19s for one
// string. The steps are counted before they are done, and a call that
// would pass the bound fails with an error naming it; the worst schemas
// found cost 1 to 3 s of host CPU that way (BenchmarkValidationWorkBound).
// A 16 MiB argument against a plain schema (8 million array elements,
// each checked once) takes half of it.
const MaxValidationWork = 1 << 24

// errorWork is what listing the mismatches costs, per check, against
// checking for validity alone: the validator's error tree and pi's message
// lines (measured: 2 to 6 µs a mismatch and 7 µs a line, against 0.2 µs a
// check for validity alone).
const errorWork = 32

// refWork is what the validator's following one reference costs against
// one check (it sets up a scope of its own: measured 2.5 µs a reference
// in a fan-out of them, against 0.2 µs a check).
const refWork = 16

// callWork is what one call of the validator costs before its first check
// (measured: about 10 µs a union branch tried, against 0.2 µs a check).
const callWork = 32

// stringWork is how many bytes of a string a keyword that reads it
// (pattern, format, lengths, const, enum) scans in one check's time.
const stringWork = 16

// scansStrings reports whether s has a keyword whose check of a string
// reads all of it: a 1 MiB string against 300 patterns is 300 checks but
// 300 MiB read (0.9 s).
func scansStrings(s *jsonschema.Schema) bool {
	return s.Pattern != nil || s.Format != nil || s.MinLength != nil || s.MaxLength != nil ||
		s.ContentEncoding != nil || s.ContentMediaType != nil || s.Const != nil || s.Enum != nil
}

// workBudget is the steps one ValidateArguments call has left.
type workBudget struct {
	limit   int // MaxValidationWork; less in tests
	left    int
	over    bool
	coerced int // coerce calls made, which the charges must cover (the tests check)
}

func newWorkBudget() *workBudget {
	return &workBudget{limit: MaxValidationWork, left: MaxValidationWork}
}

// charge takes n steps from b, reporting false (and stopping all work
// after) once b would go below zero.
func (b *workBudget) charge(n int) bool {
	if b.over || n > b.left {
		b.over = true
		return false
	}
	b.left -= n
	return true
}

// overBudget is the error line of work that would pass MaxValidationWork.
func (b *workBudget) overBudget(what string) string {
	return fmt.Sprintf("%s takes more than %d steps (host.MaxValidationWork)", what, b.limit)
}

// wholeValueReads is how many times checking an array or object against s
// reads all of it: uniqueItems hashes every element, const and each enum
// value compare with the whole value.
func wholeValueReads(s *jsonschema.Schema) int {
	k := 0
	if s.UniqueItems {
		k++
	}
	if s.Const != nil {
		k++
	}
	if s.Enum != nil {
		k += len(s.Enum.Values)
	}
	return k
}

// nodesUpTo is how many value nodes v holds, counting stopped past limit.
func nodesUpTo(v any, limit int) int {
	n := 0
	var walk func(v any)
	walk = func(v any) {
		if n++; n > limit {
			return
		}
		switch x := v.(type) {
		case map[string]any:
			for _, e := range x {
				walk(e)
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	walk(v)
	return n
}

// countNodes is how many value nodes v holds.
func countNodes(v any) int {
	n := 1
	switch x := v.(type) {
	case map[string]any:
		for _, e := range x {
			n += countNodes(e)
		}
	case []any:
		for _, e := range x {
			n += countNodes(e)
		}
	}
	return n
}

// checks counts, up to limit, the (value node, subschema) pairs validating
// v against sch can evaluate, following references as the validator does
// and stopping where it does at a subschema met again at the same value
// node. It counts more than the validator evaluates, never less: every
// member meets patternProperties, additionalProperties and
// unevaluatedProperties, every element meets every items keyword, and no
// branch is left out because another matched. A result past limit means
// the work would pass it (a $ref graph that fans out counts on
// exponentially, so the limit also bounds the counting).
func checks(sch *jsonschema.Schema, v any, limit int) int {
	n := 0
	node := 0 // the value node being visited, numbered in walk order
	type at struct {
		s    *jsonschema.Schema
		node int
	}
	onPath := map[at]bool{}
	var walk func(s *jsonschema.Schema, v any, id int)
	walkAny := func(x any, v any, id int) { // the any-typed keywords: a *Schema or a bool
		if y, ok := x.(*jsonschema.Schema); ok {
			walk(y, v, id)
		}
	}
	child := func(s *jsonschema.Schema, v any) {
		if s != nil && n <= limit {
			node++
			walk(s, v, node)
		}
	}
	ref := func(s *jsonschema.Schema, v any, id int) { // only a reference can close a cycle
		if s == nil || n > limit {
			return
		}
		if n += refWork; onPath[at{s, id}] {
			return
		}
		onPath[at{s, id}] = true
		walk(s, v, id)
		delete(onPath, at{s, id})
	}
	walk = func(s *jsonschema.Schema, v any, id int) {
		if s == nil || n > limit {
			return
		}
		n++
		if str, ok := v.(string); ok && scansStrings(s) {
			n += len(str) / stringWork
		}
		if k := wholeValueReads(s); k > 0 {
			switch v.(type) {
			case map[string]any, []any:
				n += k * nodesUpTo(v, limit-n+1)
			}
		}
		ref(s.Ref, v, id)
		ref(s.RecursiveRef, v, id)
		if s.DynamicRef != nil {
			ref(s.DynamicRef.Ref, v, id)
		}
		walk(s.Not, v, id)
		walk(s.If, v, id)
		walk(s.Then, v, id)
		walk(s.Else, v, id)
		for _, x := range s.AllOf {
			walk(x, v, id)
		}
		for _, x := range s.AnyOf {
			walk(x, v, id)
		}
		for _, x := range s.OneOf {
			walk(x, v, id)
		}
		for _, x := range s.DependentSchemas {
			walk(x, v, id)
		}
		for _, x := range s.Dependencies {
			walkAny(x, v, id)
		}
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				child(s.PropertyNames, k)
				child(s.Properties[k], e)
				for _, p := range s.PatternProperties {
					n += len(k) / stringWork // the pattern is matched against the name
					child(p, e)
				}
				if a, ok := s.AdditionalProperties.(*jsonschema.Schema); ok {
					child(a, e)
				}
				child(s.UnevaluatedProperties, e)
			}
		case []any:
			for i, e := range x {
				switch items := s.Items.(type) {
				case *jsonschema.Schema:
					child(items, e)
				case []*jsonschema.Schema:
					if i < len(items) {
						child(items[i], e)
					}
				}
				if i < len(s.PrefixItems) {
					child(s.PrefixItems[i], e)
				}
				if a, ok := s.AdditionalItems.(*jsonschema.Schema); ok {
					child(a, e)
				}
				child(s.Items2020, e)
				child(s.Contains, e)
				child(s.UnevaluatedItems, e)
			}
		}
	}
	walk(sch, v, node)
	return n
}
