package runtime

import (
	"fmt"
	"strings"

	"github.com/wasmagent/wasmagent/runtime/internal/wasmbin"
)

// What a module declares, every instance of it holds in the host's
// memory beside its linear memory, and makes again at each call: its
// tables, the entries of its element segments, its globals, imports and
// exports. A declaration costs a few bytes in the file and far more in
// an instance (a table of 2^20 entries is 5 bytes in the file and 8 MiB
// in every instance; an element entry, 1 byte and about 90 bytes and
// 0.5 µs of instantiation, which nothing interrupts). These caps bound
// what one instance can hold that way (SECURITY.md, row 16); real
// plugins sit far below them (a Go plugin of 6 MB: 1 table, 8 globals,
// under 4,000 elements, 50 imports, 10 exports, at most 100,000 data
// segments, as its linker writes no more).
const (
	// MaxTables bounds the number of a module's tables. Growth shares
	// MaxTableElements among them: table.grow fails past
	// MaxTableElements / tables for each.
	MaxTables = 1 << 10
	// MaxGlobals bounds a module's defined globals (about 90 bytes each
	// in every instance).
	MaxGlobals = 1 << 15
	// MaxElements bounds the entries of a module's element segments,
	// all segments together; MaxElementSegments the segments.
	MaxElements        = 1 << 16
	MaxElementSegments = 1 << 15
	// MaxImports and MaxExports bound a module's imports and exports, of
	// every kind.
	MaxImports = 1 << 15
	MaxExports = 1 << 15
	// MaxTypes bounds a module's function types: each is a few bytes
	// and about 7 µs of compiling (10^6 types, 4 MB, took 11 s), and is
	// held once per module, not per instance.
	MaxTypes = 1 << 15
	// MaxDataSegments bounds a module's data segments: each is a slice
	// header (24 bytes) in every instance, and an empty passive one is
	// 2 bytes of the file. 100,000 is the limit of V8 (a module over it
	// runs in no browser) and of Go's linker, which merges a plugin's
	// symbols into at most that many.
	MaxDataSegments = 100000
)

// MaxSections bounds a module's sections, custom ones included (1,024):
// real modules have a few dozen at most, and a module of empty custom
// sections, 3 bytes each, cost the host 32 bytes each in every pass over
// its sections before anything was checked.
const MaxSections = wasmbin.MaxSections

// checkDeclarations refuses a module whose declarations would cost
// each instance more than the caps above, naming the count and the cap.
func checkDeclarations(c wasmbin.Counts, tables, types int) error {
	for _, d := range []struct {
		what  string
		n, at uint64
		cap   string
	}{
		{"tables", uint64(tables), MaxTables, "runtime.MaxTables"},
		{"table elements at start, all tables together", c.TableElements, MaxTableElements, "runtime.MaxTableElements"},
		{"globals", uint64(c.Globals), MaxGlobals, "runtime.MaxGlobals"},
		{"element segments", uint64(c.ElementSegments), MaxElementSegments, "runtime.MaxElementSegments"},
		{"element segment entries, all segments together", c.Elements, MaxElements, "runtime.MaxElements"},
		{"imports", uint64(c.Imports), MaxImports, "runtime.MaxImports"},
		{"exports", uint64(c.Exports), MaxExports, "runtime.MaxExports"},
		{"function types", uint64(types), MaxTypes, "runtime.MaxTypes"},
		{"data segments", uint64(c.DataSegments), MaxDataSegments, "runtime.MaxDataSegments"},
	} {
		if d.n > d.at {
			return fmt.Errorf("declares %d %s, more than the host's limit of %d (%s)", d.n, d.what, d.at, d.cap)
		}
	}
	return nil
}

// maxListed is how many names an error message lists.
const maxListed = 20

// listSome lists items for an error message, separated by sep: at most n of them, each cut
// to 200 bytes, and how many more there are. A module chooses its names
// and their number; a message about them stays short.
func listSome(items []string, n int, sep string) string {
	const maxItem = 200
	var b strings.Builder
	for i, it := range items {
		if i == n {
			fmt.Fprintf(&b, " and %d more", len(items)-n)
			break
		}
		if i > 0 {
			b.WriteString(sep)
		}
		if len(it) > maxItem {
			it = strings.ToValidUTF8(it[:maxItem], "") + "…"
		}
		b.WriteString(it)
	}
	return b.String()
}
