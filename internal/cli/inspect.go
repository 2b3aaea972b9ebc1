package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/wasmagent/wasmagent/host"
	"github.com/wasmagent/wasmagent/host/wasmtool"
	"github.com/wasmagent/wasmagent/runtime"
)

func toolsCmd(ctx context.Context, args []string, env Env) int {
	fs := newFlags("tools", "tools [--config FILE]", "  wasmagent tools --config agent.toml\n", env)
	cfg := fs.String("config", defaultConfig(), "configuration `file`")
	if code, ok := parse(fs, args); !ok {
		return code
	}
	s, code := loadConfig(ctx, *cfg, true, env)
	if s == nil {
		return code
	}
	defer s.Close()
	w := tabwriter.NewWriter(env.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "TOOL\tMODE\tPLUGIN\tSHA256\tGRANTS")
	for _, t := range s.Tools {
		mode := string(t.Mode)
		if mode == "" {
			mode = "parallel"
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\n", t.Name, mode, t.Plugin.Path(), t.Plugin.SHA256()[:12], grantsSummary(t.Grants))
	}
	w.Flush()
	if len(s.Hooks) > 0 {
		fmt.Fprintln(env.Stdout)
		w = tabwriter.NewWriter(env.Stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(w, "HOOK\tTOOLS\tPLUGIN\tSHA256\tGRANTS")
		for _, h := range s.Hooks {
			tools := "*"
			if len(h.Tools) > 0 {
				tools = strings.Join(h.Tools, ",")
			}
			fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\n", h.Kind, tools, h.Plugin.Path(), h.Plugin.SHA256()[:12], grantsSummary(h.Grants))
		}
		w.Flush()
	}
	return ExitOK
}

// grantsSummary says in one line what a plugin may use.
func grantsSummary(g runtime.Grants) string {
	var parts []string
	for _, d := range g.Dirs {
		mode := "ro"
		if d.Write {
			mode = "rw"
		}
		parts = append(parts, fmt.Sprintf("dir %s=%s(%s)", d.Guest, d.Host, mode))
	}
	if len(g.Hosts) > 0 {
		parts = append(parts, "hosts "+strings.Join(g.Hosts, ","))
	}
	if len(g.Config) > 0 {
		parts = append(parts, "config "+strings.Join(slices.Sorted(maps.Keys(g.Config)), ","))
	}
	parts = append(parts, fmt.Sprintf("mem %dMiB", g.MemoryPages/16), "timeout "+g.Timeout.String())
	return strings.Join(parts, "; ")
}

func validateCmd(ctx context.Context, args []string, env Env) int {
	fs := newFlags("config validate", "config validate [FILE]", "  wasmagent config validate agent.toml\n", env)
	if code, ok := parse(fs, args); !ok {
		return code
	}
	path := defaultConfig()
	if fs.NArg() > 0 {
		path = fs.Arg(0)
	}
	s, code := loadConfig(ctx, path, true, env)
	if s == nil {
		return code
	}
	defer s.Close()
	fmt.Fprintf(env.Stdout, "%s: ok (%s, %s)\n", path, plural(len(s.Tools), "tool"), plural(len(s.Hooks), "hook"))
	return ExitOK
}

func newRuntime(ctx context.Context) (*runtime.Runtime, error) {
	return runtime.New(ctx, runtime.Options{})
}

func inspectCmd(ctx context.Context, args []string, env Env) int {
	fs := newFlags("plugin inspect", "plugin inspect FILE.wasm", "  wasmagent plugin inspect plugins/calc/calc.wasm\n", env)
	if code, ok := parse(fs, args); !ok {
		return code
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return ExitUsage
	}
	path := fs.Arg(0)
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
	fmt.Fprintf(out, "file     %s\nsize     %d bytes\nsha256   %s\nexports  %s\nimports  %s\n", path, m.Size(), m.SHA256(), strings.Join(m.Exports(), " "), strings.Join(m.Imports(), " "))
	p, err := wasmtool.Load(ctx, rt, path, wasmtool.Options{})
	if err != nil {
		fmt.Fprintf(env.Stderr, "describe: %v\n", err)
		return ExitFailed
	}
	defer p.Close()
	b, _ := json.MarshalIndent(p.Description(), "", "  ")
	fmt.Fprintf(out, "describe %s\n", b)
	return ExitOK
}

// listFlag collects a repeated flag.
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ",") }
func (l *listFlag) Set(s string) error { *l = append(*l, s); return nil }

func callCmd(ctx context.Context, args []string, env Env) int {
	fs := newFlags("plugin call", "plugin call [grant flags] FILE.wasm TOOL 'ARGS_JSON'", `  wasmagent plugin call plugins/calc/calc.wasm calc '{"expression":"2^64/3"}'
  wasmagent plugin call --dir .:/work --dir /tmp/out:/out:rw plugins/fs/fs.wasm read '{"path":"/work/README.md"}'
  wasmagent plugin call --host api.github.com --config token=abc plugin.wasm fetch '{"url":"https://api.github.com"}'
`, env)
	gf := addGrantFlags(fs)
	if code, ok := parse(fs, args); !ok {
		return code
	}
	if fs.NArg() < 2 || fs.NArg() > 3 {
		fs.Usage()
		return ExitUsage
	}
	path, tool, rawArgs := fs.Arg(0), fs.Arg(1), "{}"
	if fs.NArg() == 3 {
		rawArgs = fs.Arg(2)
	}
	g, err := gf.grants()
	if err != nil {
		fmt.Fprintln(env.Stderr, err)
		return ExitUsage
	}
	rt, err := newRuntime(ctx)
	if err != nil {
		fmt.Fprintln(env.Stderr, err)
		return ExitFailed
	}
	defer rt.Close(ctx)
	p, err := wasmtool.Load(ctx, rt, path, wasmtool.Options{Grants: g})
	if err != nil {
		fmt.Fprintln(env.Stderr, err)
		return ExitUsage
	}
	defer p.Close()
	var t host.Tool
	var names []string
	for _, x := range p.Tools() {
		names = append(names, x.Info().Name)
		if x.Info().Name == tool {
			t = x
		}
	}
	if t == nil {
		fmt.Fprintf(env.Stderr, "%s has no tool %q (it has %s)\n", path, tool, strings.Join(names, ", "))
		return ExitUsage
	}
	// As the loop does: prepare, validate, execute.
	prepared, err := json.RawMessage(rawArgs), error(nil)
	if p, ok := t.(host.ArgumentPreparer); ok {
		prepared, err = p.PrepareArguments(prepared)
	}
	if err == nil {
		var schema *host.Schema
		if schema, err = host.CompileSchema(t.Info().Parameters); err == nil {
			prepared, err = schema.ValidateArguments(tool, prepared)
		}
	}
	if err != nil {
		fmt.Fprintln(env.Stderr, err)
		return ExitFailed
	}
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	go func() {
		select {
		case <-env.Interrupt:
			stop()
		case <-ctx.Done():
		}
	}()
	start := time.Now()
	res, err := t.Execute(ctx, "call_1", prepared, func(partial any) {
		b, _ := json.Marshal(partial)
		fmt.Fprintf(env.Stderr, "update: %s\n", b)
	})
	took := time.Since(start).Round(time.Microsecond)
	if err != nil {
		fmt.Fprintf(env.Stderr, "error after %v: %v\n", took, err)
		if errors.Is(err, context.Canceled) {
			return ExitAborted
		}
		return ExitFailed
	}
	b, _ := json.MarshalIndent(res, "", "  ")
	fmt.Fprintf(env.Stdout, "%s\n", b)
	fmt.Fprintf(env.Stderr, "(%v)\n", took)
	return ExitOK
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}
