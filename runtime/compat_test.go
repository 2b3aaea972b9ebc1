package runtime_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"sync"
	"testing"

	extism "github.com/extism/go-sdk"
	"github.com/tetratelabs/wazero"

	"github.com/wasmagent/wasmagent/internal/extismcompat"
	"github.com/wasmagent/wasmagent/internal/wasmbuild"
	"github.com/wasmagent/wasmagent/runtime"
)

var (
	extismCacheOnce sync.Once
	extismCache     wazero.CompilationCache
)

// extismPluginConfig gives go-sdk the tests' on-disk compilation cache,
// which the prewarm (internal/testcache) fills through the same
// extismcompat.PluginConfig.
func extismPluginConfig(t testing.TB) extism.PluginConfig {
	extismCacheOnce.Do(func() {
		c, err := wazero.NewCompilationCacheWithDir(extismcompat.CacheDir())
		if err != nil {
			t.Fatal(err)
		}
		extismCache = c
	})
	return extismcompat.PluginConfig(extismCache)
}

// updatesKey carries, in a call's context, where go-sdk's emit_update
// appends what the plugin emits.
type updatesKey struct{}

// extismHostFunctions is wasmagent's emit_update for go-sdk: it appends
// each update to the *[][]byte in the call's context.
func extismHostFunctions() []extism.HostFunction {
	emit := extism.NewHostFunctionWithStack("emit_update", func(ctx context.Context, p *extism.CurrentPlugin, stack []uint64) {
		b, err := p.ReadBytes(stack[0])
		if err != nil {
			panic(err)
		}
		if updates, ok := ctx.Value(updatesKey{}).(*[][]byte); ok {
			*updates = append(*updates, b)
		}
	}, []extism.ValueType{extism.ValueTypeI64}, nil)
	emit.SetNamespace("extism:host/user")
	return []extism.HostFunction{emit}
}

// extismCompiled holds go-sdk's compiled plugins, by module and config:
// compiling (a wazero runtime, validating and loading the module) is not
// what the comparisons are about, and cost as much as the calls.
var extismCompiled sync.Map

func extismPlugin(t testing.TB, wasm []byte, config map[string]string) *extism.CompiledPlugin {
	t.Helper()
	cfg, _ := json.Marshal(config)
	key := fmt.Sprintf("%x %s", sha256.Sum256(wasm), cfg)
	if c, ok := extismCompiled.Load(key); ok {
		return c.(*extism.CompiledPlugin)
	}
	if err := extismcompat.Check(wasm); err != nil {
		t.Fatal(err) // the prewarm has not compiled it for go-sdk
	}
	c, err := extism.NewCompiledPlugin(context.Background(), extismcompat.Manifest(wasm, config), extismPluginConfig(t), extismHostFunctions())
	if err != nil {
		t.Fatal(err)
	}
	extismCompiled.Store(key, c)
	return c
}

// extismCall runs one export of wasm on plain extism/go-sdk, in a fresh
// instance, and returns its output and the updates it emitted.
func extismCall(t testing.TB, wasm []byte, config map[string]string, export string, input []byte) ([]byte, [][]byte, error) {
	t.Helper()
	var updates [][]byte
	ctx := context.WithValue(context.Background(), updatesKey{}, &updates)
	p, err := extismPlugin(t, wasm, config).Instance(ctx, extism.PluginInstanceConfig{})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close(ctx)
	_, out, err := p.CallWithContext(ctx, export, input)
	return out, updates, err
}

// Plugins built with go-pdk (through the sdk or directly) and a hand-made
// module with no language runtime give the same outputs, byte for byte,
// on plain Extism go-sdk and on this runtime: the ABI is Extism's.
func TestSameOutputsAsExtism(t *testing.T) {
	probeWasm, err := os.ReadFile(wasmbuild.ForTest(t, "internal/testplugins/probe"))
	if err != nil {
		t.Fatal(err)
	}
	rawWasm, err := os.ReadFile(wasmbuild.ForTest(t, "internal/testplugins/raw"))
	if err != nil {
		t.Fatal(err)
	}
	echo := wasmbuild.EchoPlugin()
	cfg := map[string]string{"greeting": "grüß dich", "describe": `{"abi":1}`}
	cases := []struct {
		name   string
		wasm   []byte
		export string
		input  string
	}{
		{"echo empty", echo, "echo", ""},
		{"echo 1 byte", echo, "echo", "x"},
		{"echo 1 KiB", echo, "echo", string(bytes.Repeat([]byte("0123456789abcdef"), 64))},
		{"raw echo 13 bytes", rawWasm, "echo", "odd length!!!"},
		{"raw describe from config", rawWasm, "describe", ""},
		{"probe describe", probeWasm, "describe", ""},
		{"probe echo", probeWasm, "execute", `{"toolCallId":"c1","name":"echo","args":{"text":"ünïcödé"}}`},
		{"probe config", probeWasm, "execute", `{"toolCallId":"c1","name":"config","args":{"key":"greeting"}}`},
		{"probe updates", probeWasm, "execute", `{"toolCallId":"c1","name":"updates","args":{"n":2}}`},
		{"probe hook", probeWasm, "before_tool_call", `{"toolCall":{"id":"c1","name":"write","arguments":{}},"args":{"block":true}}`},
	}
	// One plugin per module: each call is a fresh instance of it.
	plugins := map[*byte]*runtime.Plugin{}
	for _, c := range cases {
		if plugins[&c.wasm[0]] == nil {
			plugins[&c.wasm[0]] = pluginOf(t, c.name, c.wasm, runtime.PluginOptions{Grants: runtime.Grants{Config: cfg}})
		}
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			want, wantUpdates, err := extismCall(t, c.wasm, cfg, c.export, []byte(c.input))
			if err != nil {
				t.Fatalf("extism: %v", err)
			}
			p := plugins[&c.wasm[0]]
			var updates [][]byte
			got, err := p.Call(context.Background(), c.export, []byte(c.input), &runtime.CallOptions{OnUpdate: func(b []byte) error {
				updates = append(updates, b)
				return nil
			}})
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("output differs:\n extism: %q\n ours:   %q", want, got)
			}
			if len(updates) != len(wantUpdates) {
				t.Fatalf("%d updates, extism %d", len(updates), len(wantUpdates))
			}
			for i := range updates {
				if !bytes.Equal(updates[i], wantUpdates[i]) {
					t.Fatalf("update %d: %q, extism %q", i, updates[i], wantUpdates[i])
				}
			}
		})
	}
}

// An error set by the plugin reads the same on both.
func TestSameErrorAsExtism(t *testing.T) {
	rawWasm, err := os.ReadFile(wasmbuild.ForTest(t, "internal/testplugins/raw"))
	if err != nil {
		t.Fatal(err)
	}
	cfg := map[string]string{"execute.error": "tool exploded"}
	_, _, xerr := extismCall(t, rawWasm, cfg, "execute", nil)
	p := pluginOf(t, "raw.wasm", rawWasm, runtime.PluginOptions{Grants: runtime.Grants{Config: cfg}})
	_, ourErr := p.Call(context.Background(), "execute", nil, nil)
	ce := callError(t, ourErr)
	if xerr == nil || xerr.Error() != ce.Message {
		t.Fatalf("extism error %q, our message %q", xerr, ce.Message)
	}
}
