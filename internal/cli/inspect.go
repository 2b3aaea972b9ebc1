package cli

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/wasmagent/wasmagent/host/wasmtool"
	"github.com/wasmagent/wasmagent/runtime"
)

func newRuntime(ctx context.Context) (*runtime.Runtime, error) {
	return runtime.New(ctx, runtime.Options{})
}

func inspectCmd(ctx context.Context, args []string, env Env) int {
	f := newFlags("plugin inspect", "plugin inspect FILE.wasm", "  wasmagent plugin inspect plugins/calc/calc.wasm\n", env)
	if code, ok := f.parse(args); !ok {
		return code
	}
	if f.NArg() != 1 {
		return f.fail("takes one FILE.wasm")
	}
	path := f.Arg(0)
	rt, err := newRuntime(ctx)
	if err != nil {
		fmt.Fprintln(env.Stderr, err)
		return ExitFailed
	}
	defer rt.Close(ctx)
	m, err := rt.CompileFile(ctx, path)
	if err != nil {
		fmt.Fprintf(env.Stderr, "%s: %v\n", path, err)
		return ExitFailed
	}
	out := env.Stdout
	fmt.Fprintf(out, "file     %s\nsize     %d bytes\nsha256   %s\nexports  %s\n", path, m.Size(), m.SHA256(), strings.Join(m.Exports(), " "))
	printImports(out, m.Imports())
	p, err := wasmtool.Load(ctx, rt, path, wasmtool.Options{})
	if err != nil {
		fmt.Fprintf(env.Stderr, "describe: %v\n", err)
		return ExitFailed
	}
	defer p.Close()
	b, _ := marshalJSON(p.Description(), "  ")
	fmt.Fprintf(out, "describe %s\n", b)
	return ExitOK
}

// printImports lists "module.name" imports one module a line, in the order
// modules first appear, each module's names sorted and without repeats.
func printImports(w io.Writer, imports []string) {
	var mods []string
	names := map[string][]string{}
	for _, imp := range imports {
		mod, name, _ := strings.Cut(imp, ".")
		if _, ok := names[mod]; !ok {
			mods = append(mods, mod)
		}
		names[mod] = append(names[mod], name)
	}
	if len(mods) == 0 {
		fmt.Fprintln(w, "imports  (none)")
		return
	}
	width := 0
	for _, m := range mods {
		width = max(width, len(m))
	}
	for i, m := range mods {
		label := "imports"
		if i > 0 {
			label = ""
		}
		ns := slices.Compact(slices.Sorted(slices.Values(names[m])))
		fmt.Fprintf(w, "%-8s %-*s  %s\n", label, width, m, strings.Join(ns, " "))
	}
}
