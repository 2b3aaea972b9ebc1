package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/wasmagent/wasmagent/host"
	"github.com/wasmagent/wasmagent/host/wasmtool"
	"github.com/wasmagent/wasmagent/internal/words"
	"github.com/wasmagent/wasmagent/runtime"
	"github.com/wasmagent/wasmagent/sdk"
)

const callSynopsis = `plugin call [flags] FILE.wasm TOOL ['ARGS_JSON']
       wasmagent plugin call --hook before|after [flags] FILE.wasm ['CALL_JSON']`

const callExamples = `  wasmagent plugin call plugins/calc/calc.wasm calc '{"expression":"2^64/3"}'
  wasmagent plugin call --dir .:/work --dir /tmp:/out:rw plugins/fs/fs.wasm read '{"path":"/work/README.md"}'
  wasmagent plugin call --host api.github.com --set user_agent=me plugins/fetch/fetch.wasm fetch '{"url":"https://api.github.com/zen"}'
  echo '{"expression":"1+1"}' | wasmagent plugin call --input - plugins/calc/calc.wasm calc
  wasmagent plugin call --hook before --set default=deny plugins/policy/policy.wasm --tool write --args '{"path":"/etc/passwd"}'
  wasmagent plugin call --hook before plugins/policy/policy.wasm '{"toolCall":{"id":"c1","name":"write","arguments":{}},"args":{}}'

A tool call runs as the loop runs it: prepare, validate against the schema,
execute; the result is printed as JSON. A hook call (--hook) runs the
plugin's beforeToolCall or afterToolCall on a sample call — the JSON the host
would send (docs/abi.md), or one made from --tool, --args, --result and
--is-error — and prints its decision: {} allows (before) or keeps the
result (after).
`

func callCmd(ctx context.Context, args []string, env Env) int {
	f := newFlags("plugin call", callSynopsis, callExamples, env)
	gf := addGrantFlags(f)
	input := f.String("input", "", "read ARGS_JSON (or CALL_JSON) from a `FILE`, or from stdin with -")
	logLevel := f.String("log-level", "warn", "the plugin's log `LEVEL` on stderr: debug, info, warn or error")
	hook := f.String("hook", "", "dry-run a hook instead of a tool: `before|after`")
	maxCost := addCompileCostFlag(f)
	hf := addHookCallFlags(f)
	if err := refuseForeignFlags(args); err != nil {
		return f.fail("%v", err)
	}
	if code, ok := f.parse(args); !ok {
		return code
	}
	level, err := parseLevel(*logLevel)
	if err != nil {
		return f.fail("%v", err)
	}
	g, err := gf.grants()
	if err != nil {
		return f.fail("%v", err)
	}
	mc, err := compileCost(*maxCost)
	if err != nil {
		return f.fail("%v", err)
	}
	var c call
	switch *hook {
	case "":
		if hf.set() {
			return f.fail("--tool, --args, --result and --is-error go with --hook")
		}
		c, err = newToolCall(f.Args(), *input, env)
	case "before", "after":
		c, err = newHookCall(*hook, f.Args(), *input, hf, env)
	default:
		return f.fail("--hook %q: want before or after", *hook)
	}
	if err != nil {
		return f.fail("%v", err)
	}
	cache := defaultCache(env, true, noCacheFix)
	rt, err := runtime.New(ctx, runtime.Options{Logger: newLogger(env, level), MaxCompileCost: mc, CacheDir: cache})
	if err != nil {
		fmt.Fprintln(env.Stderr, err)
		return ExitFailed
	}
	defer rt.Close(ctx)
	var p *wasmtool.Plugin
	if whileLoading(env, loadNotice([]string{c.path()}, cache == "off"), func(Env) {
		p, err = wasmtool.Load(ctx, rt, c.path(), wasmtool.Options{Grants: g})
	}, func() {
		if p != nil {
			p.Close()
		}
	}) {
		return ExitAborted
	}
	if err != nil {
		fmt.Fprintln(env.Stderr, err)
		for _, hint := range []string{grantHint(err), compileCostHint(err), memoryHint(err), notWasmHint(err, c.path())} {
			if hint != "" {
				fmt.Fprintln(env.Stderr, hint)
			}
		}
		return ExitUsage
	}
	defer p.Close()
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
	out, code := c.run(ctx, p, env)
	if code == ExitOK {
		if err := printJSON(jsonOut(env.Stdout), out); err != nil {
			fmt.Fprintf(env.Stderr, "printing the result: %v\n", err)
			return ExitFailed
		}
	}
	if code == ExitOK || code == ExitFailed {
		fmt.Fprintf(env.Stderr, "(%v)\n", time.Since(start).Round(time.Microsecond))
	}
	return code
}

// A call is what plugin call runs: a tool, or a hook on a sample call.
type call interface {
	path() string
	// run calls the plugin and returns what to print, or reports the
	// failure on stderr with a non-zero exit code.
	run(ctx context.Context, p *wasmtool.Plugin, env Env) (any, int)
}

// readInput is the JSON positional argument, or --input's file, or
// stdin for --input - or a positional "-" (echo '{"x":1}' | wasmagent
// plugin call p.wasm tool -). Stdin is read only when asked, as run
// reads it only for "-".
func readInput(positional []string, input, what string, env Env) (string, error) {
	if len(positional) > 0 && positional[0] == "-" {
		if input != "" {
			return "", fmt.Errorf("give %s either as an argument or with --input, not both", what)
		}
		input, positional = "-", nil
	}
	switch {
	case input != "" && len(positional) > 0:
		return "", fmt.Errorf("give %s either as an argument or with --input, not both", what)
	case input == "-" && env.Stdin == nil:
		return "", fmt.Errorf("%s from stdin: stdin is closed", what)
	case input == "-":
		b, err := io.ReadAll(io.LimitReader(env.Stdin, maxPrompt))
		if err != nil {
			return "", fmt.Errorf("--input -: %w", err)
		}
		return string(b), nil
	case input != "":
		b, err := os.ReadFile(input)
		if err != nil && looksLikeJSON(input) {
			// extism call's --input is the data itself.
			return "", fmt.Errorf("--input takes a FILE to read %s from (or - for stdin), not the JSON itself as extism call's --input does: give the JSON as the last argument, '%s'", what, clip(input, 60))
		}
		if err != nil {
			return "", fmt.Errorf("--input: %w", err)
		}
		return string(b), nil
	case len(positional) > 0:
		return positional[0], nil
	}
	return "", nil
}

// looksLikeJSON says s starts as a JSON object or array would.
func looksLikeJSON(s string) bool {
	s = strings.TrimSpace(s)
	return strings.HasPrefix(s, "{") || strings.HasPrefix(s, "[")
}

// checkJSON says what is wrong with raw, the JSON argument what (read
// from the --input file input, if not ""), quoting a short, printable
// start of it — and, when it is a Wasm module, that --input took the
// plugin's file as its FILE.
func checkJSON(what, input, raw string) error {
	var v any
	err := json.Unmarshal([]byte(raw), &v)
	if err == nil {
		return nil
	}
	from := ""
	if input != "" && input != "-" {
		from = " (from --input " + input + ")"
	}
	if strings.HasPrefix(raw, "\x00asm") {
		return fmt.Errorf("%s%s is a Wasm module, not JSON: --input FILE takes the file to read %s from (or - for stdin); the plugin comes after the flags", what, from, what)
	}
	return fmt.Errorf("%s%s is not valid JSON (%v): %q", what, from, err, clip(raw, 60))
}

type toolCall struct {
	file, tool string
	args       json.RawMessage
}

func newToolCall(args []string, input string, env Env) (*toolCall, error) {
	if len(args) < 2 && strings.HasSuffix(input, ".wasm") {
		return nil, fmt.Errorf("--input took %s as its FILE: it names the file to read ARGS_JSON from (or - for stdin); the plugin comes after the flags", input)
	}
	if len(args) < 2 || len(args) > 3 {
		return nil, errors.New("want FILE.wasm TOOL ['ARGS_JSON']")
	}
	raw, err := readInput(args[2:], input, "ARGS_JSON", env)
	if err != nil {
		return nil, err
	}
	if strings.TrimSpace(raw) == "" {
		raw = "{}"
	}
	if err := checkJSON("ARGS_JSON", input, raw); err != nil {
		return nil, err
	}
	return &toolCall{file: args[0], tool: args[1], args: json.RawMessage(raw)}, nil
}

func (c *toolCall) path() string { return c.file }

func (c *toolCall) run(ctx context.Context, p *wasmtool.Plugin, env Env) (any, int) {
	var t host.Tool
	var names []string
	for _, x := range p.Tools() {
		names = append(names, x.Info().Name)
		if x.Info().Name == c.tool {
			t = x
		}
	}
	if t == nil {
		has := pluginHas(names, p.Description().Hooks)
		if looksLikeJSON(c.tool) {
			// "plugin call x.wasm '{…}'": the arguments where TOOL goes.
			fmt.Fprintf(env.Stderr, "%s: TOOL is missing before the arguments: plugin call FILE.wasm TOOL 'ARGS_JSON' (it has %s)\n", c.file, has)
			return nil, ExitUsage
		}
		fmt.Fprintf(env.Stderr, "%s has no tool %q%s; it has %s\n", c.file, c.tool, didYouMean(c.tool, names, strconv.Quote), has)
		return nil, ExitUsage
	}
	// As the loop does: prepare, validate, execute.
	prepared, err := c.args, error(nil)
	if p, ok := t.(host.ArgumentPreparer); ok {
		prepared, err = p.PrepareArguments(prepared)
	}
	if err == nil {
		var schema *host.Schema
		if schema, err = host.CompileSchema(t.Info().Parameters); err == nil {
			prepared, err = schema.ValidateArguments(c.tool, prepared)
		}
	}
	if err != nil {
		fmt.Fprintln(env.Stderr, err)
		return nil, ExitFailed
	}
	res, err := t.Execute(ctx, "call_1", prepared, func(partial any) {
		b, _ := marshalJSON(partial, "")
		fmt.Fprintf(env.Stderr, "update: %s\n", b)
	})
	if err != nil {
		fmt.Fprintf(env.Stderr, "error: %s\n", printable(err.Error()))
		if errors.Is(err, context.Canceled) {
			return nil, ExitAborted
		}
		return nil, ExitFailed
	}
	return res, ExitOK
}

// pluginHas is what a plugin has, for a call of a tool it does not have:
// "tool wordcount", "no tools; hook beforeToolCall (call it with --hook
// before|after)".
func pluginHas(tools, hooks []string) string {
	has := words.Named("tool", tools)
	if len(hooks) > 0 {
		them := "those"
		if len(hooks) == 1 {
			them = "it"
		}
		has += "; " + words.Named("hook", hooks) + " (call " + them + " with --hook before|after)"
	}
	return has
}

// memoryHint names the --memory-mib that admits a module whose memory at
// start is over its grant, or is "".
func memoryHint(err error) string {
	var mem *runtime.MemoryGrantError
	if !errors.As(err, &mem) {
		return ""
	}
	return fmt.Sprintf("hint: pages are 64 KiB; grant at least --memory-mib %d", (mem.Need+15)/16)
}

// grantHint names the flags that grant what err says a plugin needs and
// was not given (a *wasmtool.MissingGrantsError), or is "".
func grantHint(err error) string {
	var mg *wasmtool.MissingGrantsError
	if !errors.As(err, &mg) || mg.Missing == nil {
		return ""
	}
	var flags []string
	add := func(f string) {
		if !slices.Contains(flags, f) {
			flags = append(flags, f)
		}
	}
	for _, need := range mg.Missing.Paths {
		guest, mode := "/work", ""
		if need.Guest != sdk.AnyGrant && strings.HasPrefix(need.Guest, "/") {
			guest = need.Guest
		}
		if need.Write {
			mode = ":rw"
		}
		add(fmt.Sprintf("--dir HOST:%s%s (--dir .:%s%s: this directory)", guest, mode, guest, mode))
	}
	if len(mg.Missing.Hosts) > 0 {
		add("--host NAME (once for each)")
	}
	if len(mg.Missing.Config) > 0 {
		add("--set KEY=VALUE")
	}
	return "grant them with " + strings.Join(flags, ", ")
}
