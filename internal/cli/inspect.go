package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/wasmagent/wasmagent/host/wasmtool"
	"github.com/wasmagent/wasmagent/internal/words"
	"github.com/wasmagent/wasmagent/runtime"
	"github.com/wasmagent/wasmagent/sdk"
)

func newRuntime(ctx context.Context, maxCompileCost int64, cache string) (*runtime.Runtime, error) {
	return runtime.New(ctx, runtime.Options{MaxCompileCost: maxCompileCost, CacheDir: cache})
}

// noCacheFix is what makes a compilation cache for the commands that take
// no configuration.
const noCacheFix = "set XDG_CACHE_HOME to a directory wasmagent can write"

func inspectCmd(ctx context.Context, args []string, env Env) int {
	f := newFlags("plugin inspect", "plugin inspect [flags] FILE.wasm", "  wasmagent plugin inspect plugins/calc/calc.wasm\n", env)
	maxCost := addCompileCostFlag(f)
	if code, ok := f.parse(args); !ok {
		return code
	}
	mc, err := compileCost(*maxCost)
	if err != nil {
		return f.fail("%v", err)
	}
	if f.NArg() != 1 {
		return f.fail("takes one FILE.wasm")
	}
	path := f.Arg(0)
	cache := defaultCache(env, true, noCacheFix)
	rt, err := newRuntime(ctx, mc, cache)
	if err != nil {
		fmt.Fprintln(env.Stderr, err)
		return ExitFailed
	}
	defer rt.Close(ctx)
	// The compile is the long part; the load below finds the module
	// compiled.
	var m *runtime.Module
	if whileLoading(env, loadNotice([]string{path}, cache == "off"), func(Env) { m, err = rt.CompileFile(ctx, path) }, nil) {
		return ExitAborted
	}
	if err != nil {
		// As plugin call: a file that is not there, or not a plugin, is
		// bad input (exit 2), named once.
		msg := (&wasmtool.LoadError{Path: path, Err: err}).Error()
		fmt.Fprintln(env.Stderr, printable(msg))
		for _, hint := range []string{compileCostHint(err), notWasmHint(err, path)} {
			if hint != "" {
				fmt.Fprintln(env.Stderr, hint)
			}
		}
		return ExitUsage
	}
	out := env.Stdout
	fmt.Fprintf(out, "file     %s\nsize     %s\nsha256   %s\nexports  %s\n", path, words.Count(int(m.Size()), "byte"), m.SHA256(), strings.Join(m.Exports(), " "))
	printImports(out, m.Imports())
	// The description is shown whatever the plugin needs: inspect grants
	// nothing, and a plugin that needs a directory (fs) or a host (fetch)
	// is still one to look at. Every other check of the loop's is made.
	p, err := wasmtool.Load(ctx, rt, path, wasmtool.Options{})
	if err == nil {
		defer p.Close()
		b, _ := marshalJSON(p.Description(), "  ")
		fmt.Fprintf(out, "describe %s\n", b)
		return ExitOK
	}
	var mg *wasmtool.MissingGrantsError
	if !errors.As(err, &mg) {
		fmt.Fprintln(env.Stderr, printable(err.Error()))
		return ExitUsage
	}
	d, derr := describeOnly(ctx, rt, m)
	if derr != nil {
		fmt.Fprintln(env.Stderr, printable((&wasmtool.LoadError{Path: path, Err: derr}).Error()))
		return ExitUsage
	}
	b, _ := marshalJSON(d, "  ")
	fmt.Fprintf(out, "describe %s\n", b)
	missing := strings.TrimPrefix(mg.Error(), "the plugin needs grants it was not given: ")
	fmt.Fprintf(out, "needs    %s\n         granted by: plugin call %s; agent.toml [tool.grants]\n", printable(missing), strings.TrimPrefix(grantHint(mg), "grant them with "))
	return ExitOK
}

// describeOnly is what the plugin's describe export says, granted
// nothing.
func describeOnly(ctx context.Context, rt *runtime.Runtime, m *runtime.Module) (*sdk.Description, error) {
	rp, err := rt.NewPlugin(m, runtime.PluginOptions{})
	if err != nil {
		return nil, err
	}
	defer rp.Close()
	out, err := rp.Call(ctx, sdk.ExportDescribe, nil, nil)
	if err != nil {
		return nil, err
	}
	var d sdk.Description
	if err := json.Unmarshal(out, &d); err != nil {
		return nil, err
	}
	return &d, nil
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
