// Package wasmtest runs a Go plugin's Wasm build in the real host, from a
// plain `go test`: the same runtime, grants and limits as `wasmagent run`.
// It tests what sdktest's native calls cannot: files under a directory
// grant (a native test sees the machine's own paths, not the guest's),
// HTTP through host grants, needs, memory and time limits.
//
//	func TestInTheHost(t *testing.T) {
//		p := wasmtest.Load(t, wasmtest.Build(t, "."), runtime.Grants{
//			Dirs: []runtime.Dir{{Host: t.TempDir(), Guest: "/data"}},
//		})
//		r, err := p.Execute("search", map[string]any{"root": "/data"})
//		...
//	}
//
// Tests that use it build and compile the plugin: seconds, not
// milliseconds. Keep most tests on sdktest and a few here.
package wasmtest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/wasmagent/wasmagent/host"
	"github.com/wasmagent/wasmagent/host/wasmtool"
	"github.com/wasmagent/wasmagent/runtime"
	"github.com/wasmagent/wasmagent/sdk"
)

// Build builds the plugin's main package in dir ("." is the test's own
// package) as the documentation does (GOOS=wasip1 GOARCH=wasm
// go build -trimpath -buildmode=c-shared), into a file under tb.TempDir(), and
// returns its path (named for the directory: weather/ builds
// weather.wasm). A build that fails fails the test with go build's
// output. The go command is $GO, or go from PATH. Each call builds: a
// test that needs the plugin several times loads it once.
func Build(tb testing.TB, dir string) string {
	tb.Helper()
	name := "plugin"
	if abs, err := filepath.Abs(dir); err == nil && filepath.Base(abs) != string(filepath.Separator) {
		name = filepath.Base(abs) // errors name the file: weather.wasm
	}
	out := filepath.Join(tb.TempDir(), name+".wasm")
	goTool := os.Getenv("GO")
	if goTool == "" {
		goTool = "go"
	}
	cmd := exec.Command(goTool, "build", "-trimpath", "-buildmode=c-shared", "-o", out, ".")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm", "CGO_ENABLED=0")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		tb.Fatalf("wasmtest: GOOS=wasip1 GOARCH=wasm go build -trimpath -buildmode=c-shared (in %s): %v\n%s", dir, err, stderr.String())
	}
	return out
}

var (
	rtOnce sync.Once
	rt     *runtime.Runtime
	rtErr  error
)

// cacheDir is the runtime's compilation cache: none on disk, since a test
// binary's wazero cannot tell its own version (go test stamps none), and
// code one version compiled must not be loaded by another. wasmagent's
// own tests set their shared cache, named for the version.
var cacheDir = "off"

// sharedRuntime is one runtime per test process: a plugin compiles once
// per process, not once per test.
func sharedRuntime(tb testing.TB) *runtime.Runtime {
	tb.Helper()
	rtOnce.Do(func() {
		rt, rtErr = runtime.New(context.Background(), runtime.Options{CacheDir: cacheDir})
	})
	if rtErr != nil {
		tb.Fatalf("wasmtest: the runtime: %v", rtErr)
	}
	return rt
}

// Plugin is a plugin loaded in the real host, with its grants.
type Plugin struct {
	p *wasmtool.Plugin

	mu      sync.Mutex
	updates []json.RawMessage
}

// Load loads the Wasm file with grants, as agent.toml's would: the host
// checks its description and its needs (a need not granted fails the
// test, naming it; TryLoad returns that error instead). It is closed when
// the test ends.
func Load(tb testing.TB, file string, grants runtime.Grants) *Plugin {
	tb.Helper()
	p, err := TryLoad(tb, file, grants)
	if err != nil {
		tb.Fatalf("wasmtest: %v", err)
	}
	return p
}

// TryLoad is Load that returns the host's refusal, for a test of it.
func TryLoad(tb testing.TB, file string, grants runtime.Grants) (*Plugin, error) {
	tb.Helper()
	p, err := wasmtool.Load(context.Background(), sharedRuntime(tb), file, wasmtool.Options{Grants: grants})
	if err != nil {
		return nil, err
	}
	tb.Cleanup(p.Close)
	return &Plugin{p: p}, nil
}

// Description is what the host read from the plugin's describe.
func (p *Plugin) Description() *sdk.Description { return p.p.Description() }

// Host is the loaded plugin as the host holds it: its tools (host.Tool)
// and hooks, for what Execute does not cover.
func (p *Plugin) Host() *wasmtool.Plugin { return p.p }

// Execute calls tool name with args (any value that encodes to a JSON
// object, or json.RawMessage) as the loop does: prepare_arguments, pi's
// coercion and validation against the tool's schema, then execute in a
// fresh instance. The error is what the model would read: a validation
// failure, the plugin's own error, or the host's (a cap, a timeout, a
// crash). Partial results are kept (Updates).
func (p *Plugin) Execute(name string, args any) (*sdk.Result, error) {
	raw, err := toRaw(args)
	if err != nil {
		return nil, err
	}
	var tool host.Tool
	var names []string
	for _, t := range p.p.Tools() {
		names = append(names, t.Info().Name)
		if t.Info().Name == name {
			tool = t
		}
	}
	if tool == nil {
		return nil, fmt.Errorf("wasmtest: the plugin has no tool %q (it has %q)", name, names)
	}
	if pr, ok := tool.(host.ArgumentPreparer); ok {
		if raw, err = pr.PrepareArguments(raw); err != nil {
			return nil, err
		}
	}
	schema, err := host.CompileSchema(tool.Info().Parameters)
	if err != nil {
		return nil, fmt.Errorf("tool %s: %w", name, err)
	}
	if raw, err = schema.ValidateArguments(name, raw); err != nil {
		return nil, err
	}
	res, err := tool.Execute(context.Background(), "call_1", raw, func(partial any) {
		b, _ := json.Marshal(partial)
		p.mu.Lock()
		defer p.mu.Unlock()
		p.updates = append(p.updates, b)
	})
	if err != nil {
		return nil, err
	}
	b, err := json.Marshal(res)
	if err != nil {
		return nil, err
	}
	var out sdk.Result
	if err := json.Unmarshal(b, &out); err != nil {
		return nil, fmt.Errorf("wasmtest: the result: %w", err)
	}
	return &out, nil
}

// BeforeToolCall asks the plugin's beforeToolCall hook, in the host,
// about a call of tool name with args (taken as already validated, as a
// hook sees them). An empty output allows the call.
func (p *Plugin) BeforeToolCall(name string, args any) (*sdk.BeforeOutput, error) {
	h := p.p.BeforeToolCall()
	if h == nil {
		return nil, fmt.Errorf("wasmtest: the plugin is not a beforeToolCall hook (its hooks: %q)", p.p.Description().Hooks)
	}
	raw, err := toRaw(args)
	if err != nil {
		return nil, err
	}
	r, err := h.BeforeToolCall(context.Background(), &host.ToolCallContext{ToolCall: host.ToolCall{ID: "call_1", Name: name, Arguments: raw}, Args: raw})
	if err != nil {
		return nil, err
	}
	if r == nil {
		return &sdk.BeforeOutput{}, nil
	}
	return &sdk.BeforeOutput{Block: r.Block, Reason: r.Reason, Arguments: r.Args, Ask: r.Ask}, nil
}

// AfterToolCall shows the plugin's afterToolCall hook, in the host, a call
// and its result. As sdktest's, a hook that answers nothing gives an
// empty output, and Details, if present, is a json.RawMessage.
func (p *Plugin) AfterToolCall(name string, args any, result *sdk.Result) (*sdk.AfterOutput, error) {
	h := p.p.AfterToolCall()
	if h == nil {
		return nil, fmt.Errorf("wasmtest: the plugin is not an afterToolCall hook (its hooks: %q)", p.p.Description().Hooks)
	}
	raw, err := toRaw(args)
	if err != nil {
		return nil, err
	}
	content, err := wasmtool.HostContent(result.Content)
	if err != nil {
		return nil, err
	}
	tr := host.ToolResult{Content: content, Details: result.Details}
	if result.Terminate {
		tr.Terminate = &result.Terminate
	}
	call := host.ToolCallContext{ToolCall: host.ToolCall{ID: "call_1", Name: name, Arguments: raw}, Args: raw}
	r, err := h.AfterToolCall(context.Background(), &host.AfterToolCallContext{ToolCallContext: call, Result: tr, IsError: result.IsError})
	if err != nil {
		return nil, err
	}
	if r == nil {
		return &sdk.AfterOutput{}, nil
	}
	out := &sdk.AfterOutput{IsError: r.IsError, Terminate: r.Terminate, Details: r.Details}
	if r.Content != nil {
		b, err := json.Marshal(r.Content)
		if err != nil {
			return nil, err
		}
		if err := json.Unmarshal(b, &out.Content); err != nil {
			return nil, fmt.Errorf("wasmtest: the hook's content: %w", err)
		}
	}
	return out, nil
}

// Updates returns the partial results the plugin has sent so far, each a
// JSON result as a tool_execution_update carries it.
func (p *Plugin) Updates() []json.RawMessage {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]json.RawMessage(nil), p.updates...)
}

func toRaw(args any) (json.RawMessage, error) {
	switch a := args.(type) {
	case json.RawMessage:
		return a, nil
	case nil:
		return json.RawMessage("{}"), nil
	}
	b, err := json.Marshal(args)
	if err != nil {
		return nil, fmt.Errorf("wasmtest: arguments: %w", err)
	}
	return b, nil
}
