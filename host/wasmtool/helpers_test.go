package wasmtool_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/wasmagent/wasmagent/host"
	"github.com/wasmagent/wasmagent/host/wasmtool"
	"github.com/wasmagent/wasmagent/internal/plugintest"
	"github.com/wasmagent/wasmagent/internal/wasmbuild"
	"github.com/wasmagent/wasmagent/runtime"
)

func rt(t testing.TB) *runtime.Runtime { return plugintest.Runtime(t) }

func load(t testing.TB, pkg string, opts wasmtool.Options) (*wasmtool.Plugin, error) {
	t.Helper()
	p, err := wasmtool.Load(context.Background(), rt(t), wasmbuild.ForTest(t, pkg), opts)
	if err == nil {
		t.Cleanup(p.Close)
	}
	return p, err
}

func mustLoad(t testing.TB, pkg string, opts wasmtool.Options) *wasmtool.Plugin {
	t.Helper()
	p, err := load(t, pkg, opts)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// mustLoadPool loads the probe plugin with a pool of n instances.
func mustLoadPool(t testing.TB, n int) *wasmtool.Plugin {
	return mustLoad(t, "internal/testplugins/probe", wasmtool.Options{Name: "probe", PoolSize: n})
}

func probe(t testing.TB, g runtime.Grants) *wasmtool.Plugin {
	return mustLoad(t, "internal/testplugins/probe", wasmtool.Options{Name: "probe", Grants: g, PoolSize: 2})
}

// raw loads the go-pdk-only test plugin whose exports answer with the
// configuration values of their names.
func raw(t testing.TB, cfg map[string]string) (*wasmtool.Plugin, error) {
	return load(t, "internal/testplugins/raw", wasmtool.Options{Name: "raw", Grants: runtime.Grants{Config: cfg}})
}

func call(id, name, args string) host.ToolCall {
	return host.ToolCall{ID: id, Name: name, Arguments: json.RawMessage(args)}
}

func calls(cs ...host.ToolCall) host.Contents {
	content := host.Contents{}
	for _, c := range cs {
		content = append(content, c)
	}
	return content
}

func user(s string) *host.UserMessage { return &host.UserMessage{Content: host.Text(s), Timestamp: 1} }

// results returns the text of each toolResult message of a run, in order,
// with its error flag.
func results(msgs []host.Message) []string {
	var out []string
	for _, m := range msgs {
		if r, ok := m.(*host.ToolResultMessage); ok {
			s := r.Content.TextOf()
			if r.IsError {
				s = "error: " + s
			}
			out = append(out, s)
		}
	}
	return out
}
