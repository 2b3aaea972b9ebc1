// Package plugintest loads a first-party plugin, built from source, into
// the real host for tests: the runtime, grants and all.
package plugintest

import (
	"context"
	"sync"
	"testing"

	"github.com/wasmagent/wasmagent/host"
	"github.com/wasmagent/wasmagent/host/wasmtool"
	"github.com/wasmagent/wasmagent/internal/wasmbuild"
	"github.com/wasmagent/wasmagent/runtime"
)

var (
	once sync.Once
	rt   *runtime.Runtime
	err  error
)

// Runtime is one Runtime per test process, on the tests' shared
// compilation cache (modules compile once per Runtime).
func Runtime(t testing.TB) *runtime.Runtime {
	t.Helper()
	once.Do(func() {
		rt, err = runtime.New(context.Background(), runtime.Options{CacheDir: wasmbuild.TestCacheDir()})
	})
	if err != nil {
		t.Fatal(err)
	}
	return rt
}

// Load builds the plugin package pkg (relative to the module root) and
// loads it with grants; it is closed when the test ends. Tests that build
// plugins are skipped with -short.
func Load(t *testing.T, pkg string, grants runtime.Grants) *wasmtool.Plugin {
	t.Helper()
	p, err := TryLoad(t, pkg, grants)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TryLoad is Load that returns the load error.
func TryLoad(t *testing.T, pkg string, grants runtime.Grants) (*wasmtool.Plugin, error) {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and runs the plugin in the host")
	}
	p, err := wasmtool.Load(context.Background(), Runtime(t), wasmbuild.ForTest(t, pkg), wasmtool.Options{Grants: grants})
	if err != nil {
		return nil, err
	}
	t.Cleanup(p.Close)
	return p, nil
}

// Tool returns the plugin's tool called name.
func Tool(t *testing.T, p *wasmtool.Plugin, name string) host.Tool {
	t.Helper()
	for _, tool := range p.Tools() {
		if tool.Info().Name == name {
			return tool
		}
	}
	t.Fatalf("the plugin has no tool %q", name)
	return nil
}

// Execute runs a tool as the loop does after validation.
func Execute(t *testing.T, p *wasmtool.Plugin, name, args string) (host.ToolResult, error) {
	t.Helper()
	return Tool(t, p, name).Execute(context.Background(), "call_1", []byte(args), nil)
}
