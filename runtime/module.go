package runtime

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"

	"github.com/wasmagent/wasmagent/runtime/internal/fuel"
	imagepkg "github.com/wasmagent/wasmagent/runtime/internal/image"
	"github.com/wasmagent/wasmagent/runtime/internal/wasmbin"
)

// Module is a compiled plugin module, shared by every [Plugin] made from it.
type Module struct {
	r        *Runtime
	name     string
	sum      [sha256.Size]byte
	size     int
	compiled wazero.CompiledModule
	exports  map[string]api.FunctionDefinition
	minPages uint32
	noMemory bool               // the module defines no memory
	tmpl     *imagepkg.Template // the template compiled instead of the module (nil: none)
	noImage  string             // why there is no template
}

// Name is the name the module was compiled under (usually its file).
func (m *Module) Name() string { return m.name }

// SHA256 is the hex sha256 of the module's bytes.
func (m *Module) SHA256() string { return hex.EncodeToString(m.sum[:]) }

// Size is the module's size in bytes.
func (m *Module) Size() int { return m.size }

// HasExport reports whether the module exports a function called name.
func (m *Module) HasExport(name string) bool {
	_, ok := m.exports[name]
	return ok
}

// Exports lists the module's exported functions, sorted.
func (m *Module) Exports() []string {
	names := make([]string, 0, len(m.exports))
	for n := range m.exports {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Imports lists the module's imported functions as "module.name", in
// import order (without the one the fuel instrumentation adds).
func (m *Module) Imports() []string {
	var out []string
	for _, f := range m.compiled.ImportedFunctions() {
		mod, name, _ := f.Import()
		if !reservedImport(mod, name) {
			out = append(out, mod+"."+name)
		}
	}
	return out
}

// CompileFile reads and compiles the module at path.
func (r *Runtime) CompileFile(ctx context.Context, path string) (*Module, error) {
	wasm, err := r.ReadModule(path)
	if err != nil {
		return nil, err
	}
	return r.Compile(ctx, path, wasm)
}

// Compile compiles wasm once per Runtime: the same bytes compiled again,
// under any name and from any goroutine, return the first Module. name
// labels errors and logs.
func (r *Runtime) Compile(ctx context.Context, name string, wasm []byte) (*Module, error) {
	if err := r.checkModuleSize(wasm); err != nil {
		return nil, err
	}
	sum := sha256.Sum256(wasm)
	r.mu.Lock()
	e, ok := r.modules[sum]
	if !ok {
		e = &moduleEntry{done: make(chan struct{})}
		r.modules[sum] = e
	}
	r.mu.Unlock()
	if ok {
		select {
		case <-e.done:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		if e.err != nil {
			return nil, e.err
		}
		return e.mod, nil
	}
	var mod *Module
	err := r.recovered("compile "+name, func() (err error) {
		mod, err = r.compile(ctx, name, sum, wasm)
		return err
	})
	r.mu.Lock()
	if err == nil && r.closed {
		// Close has run and did not see this module: its machine code
		// must not stay counted in the shared compilation cache.
		mod.compiled.Close(ctx)
		mod, err = nil, fmt.Errorf("%s: the runtime is closed", name)
	}
	e.mod, e.err = mod, err
	if err != nil {
		// A failed compilation is not remembered: the cause (a cancelled
		// context, say) may not last.
		delete(r.modules, sum)
	}
	close(e.done)
	r.mu.Unlock()
	return mod, err
}

func (r *Runtime) compile(ctx context.Context, name string, sum [sha256.Size]byte, wasm []byte) (*Module, error) {
	minPages, memories, err := r.checkLimits(wasm)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	instrumented, tmpl, noImage, err := r.rewriteCached(name, sum, wasm)
	if err != nil {
		return nil, err
	}
	compiled, err := r.rt.CompileModule(r.compileContext(ctx), instrumented)
	if err != nil {
		return nil, fmt.Errorf("%s: not a valid Wasm module: %w", name, err)
	}
	if tmpl != nil {
		// Keep only what instances need: the segments, in one buffer of
		// their own, not the module's bytes.
		tmpl.Wasm = nil
		tmpl.CompactSegments()
	}
	m := &Module{r: r, name: name, sum: sum, size: len(wasm), compiled: compiled, exports: compiled.ExportedFunctions(), minPages: minPages, noMemory: memories == 0, tmpl: tmpl, noImage: noImage}
	if err := checkExports(m.exports); err != nil {
		compiled.Close(ctx)
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return m, nil
}

// rewrite makes what wazero compiles of wasm: the module fuel-instrumented,
// or its image template instrumented, with the template (nil: none, and
// why). rewriteCached keeps the result.
func (r *Runtime) rewrite(name string, wasm []byte) ([]byte, *imagepkg.Template, string, error) {
	var err error
	instrumented := wasm
	tmpl, noImage := r.template(wasm)
	if r.opts.stopper == "" || r.opts.stopper == "nodepth" {
		fopts := fuel.Options{NoCallDepth: r.opts.stopper == "nodepth"}
		var rep fuel.Report
		if tmpl != nil {
			if instrumented, rep, err = fuel.InstrumentReport(tmpl.Wasm, fopts); err == nil && rep.WritesTables {
				tmpl, noImage = nil, "the module's code may change a table, which an image does not hold"
			}
		}
		if tmpl == nil {
			instrumented, rep, err = fuel.InstrumentReport(wasm, fopts)
		}
		if err != nil {
			return nil, nil, "", fmt.Errorf("%s: not a valid Wasm module: %w", name, err)
		}
		if err := checkCompileCost(rep.Costs, r.opts.MaxCompileCost); err != nil {
			return nil, nil, "", fmt.Errorf("%s: %w", name, err)
		}
	}
	return instrumented, tmpl, noImage, nil
}

// MaxTableElements bounds the size of a module's tables: at start, and
// through table.grow (which fails past it, as past a table's maximum).
const MaxTableElements = fuel.MaxTableElements

// checkLimits reads every memory and table of wasm, imported or defined,
// exported or not, before wazero sees it, and returns the largest memory
// minimum (for the grant check of NewPlugin) and the number of memories. A memory over the host's
// MaxMemoryPages, a 64-bit or shared memory, an imported memory or table,
// an imported global (the host exports none), a table over
// MaxTableElements, or declarations over the caps of declared.go is
// refused here, by name.
func (r *Runtime) checkLimits(wasm []byte) (uint32, int, error) {
	// Vectors over their caps are not read, only counted: refused below.
	facts, err := wasmbin.ReadFactsWithin(wasm, wasmbin.Caps{Types: MaxTypes, Tables: MaxTables, Imports: MaxImports, Exports: MaxExports})
	if errors.Is(err, wasmbin.ErrTooManySections) {
		return 0, 0, fmt.Errorf("has %v: over the host's limit (runtime.MaxSections)", err)
	}
	if err != nil {
		return 0, 0, fmt.Errorf("not a valid Wasm module: %w", err)
	}
	var minPages uint32
	for _, mem := range facts.Memories {
		switch {
		case mem.Import != "":
			return 0, 0, fmt.Errorf("imports a memory (%s); a plugin must define its own", mem.Import)
		case mem.Is64 || mem.Shared:
			return 0, 0, fmt.Errorf("%s (%s) is not supported: 64-bit and shared memories are refused", mem, mem.Limits)
		case mem.Min > uint64(r.opts.MaxMemoryPages):
			return 0, 0, fmt.Errorf("%s needs %d pages at start, more than the host's limit of %d pages (MaxMemoryPages)", mem, mem.Min, r.opts.MaxMemoryPages)
		}
		minPages = max(minPages, uint32(mem.Min))
	}
	if len(facts.Globals) > 0 {
		return 0, 0, fmt.Errorf("imports globals (%s); the host provides none", strings.Join(facts.Globals, ", "))
	}
	for _, t := range facts.Tables {
		switch {
		case t.Import != "":
			return 0, 0, fmt.Errorf("imports a table (%s); a plugin must define its own", t.Import)
		case t.Is64:
			return 0, 0, fmt.Errorf("%s (%s) is not supported: 64-bit tables are refused", t, t.Limits)
		case t.Min > MaxTableElements:
			return 0, 0, fmt.Errorf("%s has %d elements at start, more than the host's limit of %d", t, t.Min, MaxTableElements)
		}
	}
	if err := checkDeclarations(facts.Counts, facts.Counts.Tables, facts.Counts.Types); err != nil {
		return 0, 0, err
	}
	if err := r.checkImports(facts); err != nil {
		return 0, 0, err
	}
	if goCommand(facts) {
		return 0, 0, fmt.Errorf("is a Go program built without -buildmode=c-shared (it exports _start, not _initialize): its main would run and exit at every call; a plugin must be a library (a WASI reactor): build it with GOOS=wasip1 GOARCH=wasm go build -trimpath -buildmode=c-shared")
	}
	return minPages, len(facts.Memories), nil
}

// goCommand reports whether facts are those of a module Go's own
// toolchain linked as a command: it exports _start but no initialiser,
// and carries the custom sections Go's linker writes (its build ID, or
// the producers section naming Go's compiler). Its _start runs main and
// then always exits, so it can never serve a call; refused at load, it
// is refused before its megabytes are compiled, and by config validate
// and plugin inspect too. Other commands (a C program's _start returns
// when main does) are run as Extism runs them (instance.initialize).
func goCommand(facts wasmbin.Facts) bool {
	exports := map[string]bool{}
	for _, name := range facts.Funcs {
		exports[name] = true
	}
	if !exports["_start"] || exports["_initialize"] || exports["__wasm_call_ctors"] {
		return false
	}
	_, buildID := facts.Custom["go:buildid"]
	return buildID || bytes.Contains(facts.Custom["producers"], []byte("\x0eGo cmd/compile"))
}

// checkImports refuses, at load time rather than at the first call, and
// before the module is compiled (a function type can make a module's
// compile slow, and an import naming it is refused anyway), a module that
// imports anything the host does not provide: a function of a module or
// name the host lacks, or one the host has under another signature. (An
// import whose type does not exist is wazero's to refuse.)
func (r *Runtime) checkImports(facts wasmbin.Facts) error {
	var unknown, mistyped []string
	for _, f := range facts.FuncImports {
		mod, name := f.Module, f.Name
		if mod == fuel.ReservedModule || strings.HasPrefix(mod, fuel.ReservedModule+":") {
			continue // the rewrite refuses it, saying why
		}
		host := r.hostFunction(mod, name)
		if host == nil {
			unknown = append(unknown, fmt.Sprintf("%s.%s", mod, name))
			continue
		}
		if mod == "wasi_snapshot_preview1" && len(facts.Memories) == 0 && !wasiWithoutMemory[name] {
			mistyped = append(mistyped, fmt.Sprintf("%s.%s, which reads and writes the module's memory, but the module defines no memory", mod, name))
			continue
		}
		if int(f.Type) >= len(facts.Types) {
			continue
		}
		t := facts.Types[f.Type]
		if slices.Equal(t.Params, host.ParamTypes()) && slices.Equal(t.Results, host.ResultTypes()) {
			continue
		}
		if len(mistyped) >= maxListed {
			mistyped = append(mistyped, "") // counted, not written: a type may have thousands of values
			continue
		}
		want := signature{host.ParamTypes(), host.ResultTypes()}
		mistyped = append(mistyped, fmt.Sprintf("%s.%s as %v, which the host provides as %v", mod, name, signature{t.Params, t.Results}, want))
	}
	var errs []string
	if len(unknown) > 0 {
		errs = append(errs, fmt.Sprintf("imports functions the host does not provide: %s (the host provides extism:host/env, extism:host/user.emit_update and wasi_snapshot_preview1)%s", listSome(unknown, maxListed, ", "), jsEmbeddingHint(unknown)))
	}
	if len(mistyped) > 0 {
		errs = append(errs, "imports "+listSome(mistyped, maxListed, "; "))
	}
	if len(errs) > 0 {
		return errors.New(strings.Join(errs, "; "))
	}
	return nil
}

// jsEmbeddingHint says what to do instead of AssemblyScript's imports for
// a JavaScript embedding (console.log, trace, Math.random's seed,
// Date.now, abort), when unknown names one: an AssemblyScript author
// reads which SDK call replaces it, not only that the host lacks it.
func jsEmbeddingHint(unknown []string) string {
	for _, name := range unknown {
		mod, fn, _ := strings.Cut(name, ".")
		if mod == "env" && (strings.HasPrefix(fn, "console.") || fn == "trace" || fn == "seed" || fn == "Date.now" || fn == "abort") {
			return "; env." + fn + " is one of AssemblyScript's imports for a JavaScript host (console.log, trace, seed for Math.random, Date.now, abort): log with the SDK's c.log instead of console.log and trace, extend the SDK's asconfig.json for its abort, and leave out Math.random and Date.now (docs/plugins-assemblyscript.md)"
		}
	}
	return ""
}

// wasiWithoutMemory are the WASI functions that take no pointer: the only
// ones a module without a memory can call (the others failed inside
// wazero with a nil pointer dereference).
var wasiWithoutMemory = map[string]bool{
	"proc_exit": true, "proc_raise": true, "sched_yield": true, "fd_close": true, "fd_sync": true, "fd_datasync": true,
	"fd_advise": true, "fd_allocate": true, "fd_renumber": true, "fd_filestat_set_size": true, "fd_filestat_set_times": true,
}

// hostFunction is the host function mod.name (nil: the host has none):
// Extism's, wasmagent's, WASI's as wazero provides it, or one the
// instrumentation imports.
func (r *Runtime) hostFunction(mod, name string) api.FunctionDefinition {
	switch mod {
	case "extism:host/env", "extism:host/user", "wasi_snapshot_preview1":
	default:
		if !reservedImport(mod, name) {
			return nil
		}
	}
	host := r.rt.Module(mod)
	if host == nil {
		return nil
	}
	return host.ExportedFunctionDefinitions()[name]
}
