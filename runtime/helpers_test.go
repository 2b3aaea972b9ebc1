package runtime_test

import (
	"context"
	"encoding/json"
	"sync"
	"testing"

	"github.com/wasmagent/wasmagent/internal/plugintest"
	"github.com/wasmagent/wasmagent/internal/wasmbuild"
	"github.com/wasmagent/wasmagent/runtime"
	"github.com/wasmagent/wasmagent/sdk"
)

// testCacheDir is the compilation cache shared by test runs.
func testCacheDir(testing.TB) string { return wasmbuild.TestCacheDir() }

// rt is one Runtime shared by the tests of the package.
func rt(t testing.TB) *runtime.Runtime { return plugintest.Runtime(t) }

// compiled holds the modules compile made, by package: the Runtime
// compiles the same bytes once anyway, but finding them again read the
// file and hashed it (megabytes for a Go plugin) at every test.
var compiled sync.Map

// compile is the plugin package pkg built and compiled, once per test
// process.
func compile(t testing.TB, pkg string) *runtime.Module {
	t.Helper()
	if m, ok := compiled.Load(pkg); ok {
		return m.(*runtime.Module)
	}
	m, err := rt(t).CompileFile(context.Background(), wasmbuild.ForTest(t, pkg))
	if err != nil {
		t.Fatal(err)
	}
	compiled.Store(pkg, m)
	return m
}

func plugin(t testing.TB, pkg string, opts runtime.PluginOptions) *runtime.Plugin {
	t.Helper()
	p, err := rt(t).NewPlugin(compile(t, pkg), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	return p
}

// pluginOf compiles wasm and makes a plugin of it, closed when t ends.
func pluginOf(t testing.TB, name string, wasm []byte, opts runtime.PluginOptions) *runtime.Plugin {
	t.Helper()
	m, err := rt(t).Compile(context.Background(), name, wasm)
	if err != nil {
		t.Fatal(err)
	}
	p, err := rt(t).NewPlugin(m, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	return p
}

func probe(t testing.TB, g runtime.Grants, pool int) *runtime.Plugin {
	return plugin(t, "internal/testplugins/probe", runtime.PluginOptions{Name: "probe", Grants: g, PoolSize: pool})
}

// execute calls a probe tool and returns its result.
func execute(ctx context.Context, p *runtime.Plugin, tool string, args any, opts *runtime.CallOptions) (*sdk.Result, error) {
	a, _ := json.Marshal(args)
	in, _ := json.Marshal(sdk.ExecuteInput{ToolCallID: "c1", Name: tool, Args: a})
	out, err := p.Call(ctx, sdk.ExportExecute, in, opts)
	if err != nil {
		return nil, err
	}
	var r sdk.Result
	if err := json.Unmarshal(out, &r); err != nil {
		return nil, err
	}
	return &r, nil
}

func text(r *sdk.Result) string {
	if r == nil || len(r.Content) == 0 {
		return ""
	}
	return r.Content[0].Text
}
