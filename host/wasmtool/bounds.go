package wasmtool

import (
	"bytes"
	"encoding/json"
	"fmt"
	"unicode/utf8"

	"github.com/wasmagent/wasmagent/host/internal/jsonread"
	"github.com/wasmagent/wasmagent/sdk"
)

// MaxContentBlocks bounds the content blocks of one plugin result (an
// execute output, an update, an after_tool_call rewrite), as the model's
// answers are bounded: a few bytes of JSON a block would otherwise cost
// the host some 400 bytes each, in every copy of the result (8 MiB of
// empty text blocks decoded into 220 MiB), and reach the model as that
// many blocks.
const MaxContentBlocks = 4096

// blockList is a JSON array of content blocks decoded one at a time, so
// that an array over MaxContentBlocks is refused before it is held.
// Unknown fields in a block are errors, as everywhere in the ABI.
type blockList[T any] []T

func (l *blockList[T]) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if tok, err := dec.Token(); err != nil || tok != json.Delim('[') {
		return fmt.Errorf("content is %.40s, not an array", b)
	}
	list := blockList[T]{}
	for dec.More() {
		if len(list) == MaxContentBlocks {
			return fmt.Errorf("content has more than %d blocks (wasmtool.MaxContentBlocks)", MaxContentBlocks)
		}
		var v T
		if err := dec.Decode(&v); err != nil {
			return fmt.Errorf("content[%d]: %w", len(list), err)
		}
		list = append(list, v)
	}
	*l = list
	return nil
}

// validText is b with each byte of invalid UTF-8 replaced by U+FFFD, as
// the JSON decoder does in the strings it decodes: so that what the host
// keeps as raw JSON (details, rewritten arguments) is valid UTF-8 too, and
// every JSON line the host writes (events, sessions, audit) can be read
// by a strict decoder.
func validText(b []byte) []byte {
	if utf8.Valid(b) {
		return b
	}
	return []byte(textOf(string(b)))
}

// MaxOutputDepth bounds how deep a plugin's output nests arrays and
// objects. What the host keeps of an output raw (details, a result's
// extra members, an update, rewritten arguments) it writes again inside
// the lines of sessions, events and journals, a few levels deeper; and
// readers refuse deep documents: encoding/json past 10,000 levels,
// Python's json near 1,000 (its recursion limit). On the old main an
// output was only checked to be JSON, which encoding/json takes up to
// 10,000 deep, so a result whose details nested 9,999 deep was accepted
// and made its session line unreadable (the entry dropped at the next
// load) and its events undecodable.
const MaxOutputDepth = 512

// checkJSON is the check every plugin output passes before it is
// decoded: JSON, nested at most MaxOutputDepth deep.
func checkJSON(b []byte) error {
	if !json.Valid(b) {
		return fmt.Errorf("the output is not JSON: %.120q", b)
	}
	if jsonread.NestedOver(b, MaxOutputDepth) {
		return fmt.Errorf("the output nests arrays and objects more than %d deep (wasmtool.MaxOutputDepth)", MaxOutputDepth)
	}
	return nil
}

// MaxPluginTools bounds the tools one plugin offers, and
// MaxPluginSchemaObjects the JSON objects of all their parameter
// schemas together (each schema alone is bounded by
// host.MaxSchemaObjects). Every schema is compiled when the plugin loads,
// at every start, and kept: on the old main a description within the
// output cap could list 85,000 tools of distinct one-property schemas (25
// s of CPU and 450 MB kept, at every load), or 120 schemas of 4,990
// properties each (some 36 s and 600 MB). Within these bounds a load
// compiles in about a second at most. A model API takes far fewer tools
// in a request (OpenAI's, 128).
const (
	MaxPluginTools         = 1024
	MaxPluginSchemaObjects = 20000
)

// MaxNeeds bounds the needs of each kind (paths, hosts, config values) a
// plugin declares. Each is checked against every grant, and the hints
// that say how to grant the missing ones dedupe them pairwise: on the old
// main a description within the output cap could declare 250,000 paths,
// some 30 billion comparisons to print one hint, and an error of
// megabytes at every start.
const MaxNeeds = 64

// checkToolCount refuses a description over MaxPluginTools,
// MaxPluginSchemaObjects or MaxNeeds, before any schema is compiled.
func checkToolCount(d *sdk.Description) error {
	if n := d.Needs; n != nil {
		for _, c := range []struct {
			kind  string
			count int
		}{{"paths", len(n.Paths)}, {"hosts", len(n.Hosts)}, {"config values", len(n.Config)}} {
			if c.count > MaxNeeds {
				return fmt.Errorf("describe: needs: %d %s, more than a plugin may ask for (%d of each kind, wasmtool.MaxNeeds)", c.count, c.kind, MaxNeeds)
			}
		}
	}
	if n := len(d.Tools); n > MaxPluginTools {
		return fmt.Errorf("describe: %d tools, more than one plugin may offer (%d, wasmtool.MaxPluginTools)", n, MaxPluginTools)
	}
	objects := 0
	for _, t := range d.Tools {
		objects += jsonread.CountObjects(t.Parameters)
		if objects > MaxPluginSchemaObjects {
			return fmt.Errorf("describe: the tools' parameter schemas hold more than %d JSON objects together (wasmtool.MaxPluginSchemaObjects; tool %s reaches it)", MaxPluginSchemaObjects, t.Name)
		}
	}
	return nil
}
