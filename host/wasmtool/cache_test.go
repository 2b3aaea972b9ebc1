package wasmtool_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/wasmagent/wasmagent/host"
	"github.com/wasmagent/wasmagent/host/wasmtool"
	"github.com/wasmagent/wasmagent/internal/wasmbuild"
	"github.com/wasmagent/wasmagent/runtime"
)

// cacheFixture is a copy of the probe plugin and a description cache, in
// a directory of the test's own, with the cache's log kept.
type cacheFixture struct {
	dir, wasm string
	cache     *wasmtool.DescribeCache
	mu        sync.Mutex
	log       bytes.Buffer
}

func newCacheFixture(t *testing.T) *cacheFixture {
	t.Helper()
	b, err := os.ReadFile(wasmbuild.ForTest(t, "internal/testplugins/probe"))
	if err != nil {
		t.Fatal(err)
	}
	fx := &cacheFixture{dir: t.TempDir()}
	fx.wasm = filepath.Join(fx.dir, "probe.wasm")
	if err := os.WriteFile(fx.wasm, b, 0o644); err != nil {
		t.Fatal(err)
	}
	fx.cache = wasmtool.NewDescribeCache(filepath.Join(fx.dir, "describe"), slog.New(slog.NewTextHandler(fx, &slog.HandlerOptions{Level: slog.LevelDebug})))
	return fx
}

func (fx *cacheFixture) Write(p []byte) (int, error) {
	fx.mu.Lock()
	defer fx.mu.Unlock()
	return fx.log.Write(p)
}

func (fx *cacheFixture) logged() string {
	fx.mu.Lock()
	defer fx.mu.Unlock()
	return fx.log.String()
}

func (fx *cacheFixture) load(t *testing.T, g runtime.Grants) *wasmtool.Plugin {
	t.Helper()
	p, err := wasmtool.Load(context.Background(), rt(t), fx.wasm, wasmtool.Options{Name: "probe", Grants: g, PoolSize: 1, Cache: fx.cache, Logger: slog.New(slog.NewTextHandler(fx, nil))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	return p
}

// entries are the description entries in the cache.
func (fx *cacheFixture) entries(t *testing.T) []string {
	t.Helper()
	m, _ := filepath.Glob(filepath.Join(fx.dir, "describe", "*.json"))
	return m
}

// tamper rewrites the echo tool's description in every entry, so that a
// load that takes its description from the cache shows it.
func (fx *cacheFixture) tamper(t *testing.T) {
	t.Helper()
	entries := fx.entries(t)
	if len(entries) == 0 {
		t.Fatal("no entry to tamper with")
	}
	for _, e := range entries {
		b, _ := os.ReadFile(e)
		nb := bytes.Replace(b, []byte(`"Returns its text."`), []byte(`"TAMPERED"`), 1)
		if bytes.Equal(b, nb) {
			t.Fatalf("%s has no echo description", e)
		}
		os.WriteFile(e, nb, 0o600)
	}
}

func echoDescription(p *wasmtool.Plugin) string {
	for _, tl := range p.Tools() {
		if tl.Info().Name == "echo" {
			return tl.Info().Description
		}
	}
	return ""
}

// A cached description is used only for the same module and the same
// grants: changing any grant describe can observe (a configuration value,
// a directory, a host, a limit) runs describe again; so does granting
// the real clock. A hit lists the cached tools at once, and the
// background load, finding the plugin describes itself otherwise, fails
// it and drops the entry.
func TestDescribeCacheKeyedByModuleAndGrants(t *testing.T) {
	fx := newCacheFixture(t)
	base := runtime.Grants{Config: map[string]string{"greeting": "hi"}}
	if d := echoDescription(fx.load(t, base)); d != "Returns its text." {
		t.Fatalf("first load: %q", d)
	}
	if len(fx.entries(t)) != 1 {
		t.Fatalf("entries after a load: %v", fx.entries(t))
	}
	fx.tamper(t)
	p := fx.load(t, base)
	if d := echoDescription(p); d != "TAMPERED" {
		t.Fatalf("the same grants: %q, want the cached description", d)
	}
	err := p.Wait(context.Background())
	var le *wasmtool.LoadError
	if !errors.As(err, &le) || !strings.Contains(err.Error(), "no longer describes itself") {
		t.Fatalf("Wait = %v, want the background load to refuse the changed description", err)
	}
	if _, err := p.Tools()[0].Execute(context.Background(), "c", json.RawMessage(`{"text":"x"}`), nil); err == nil || !strings.Contains(err.Error(), "no longer describes itself") {
		t.Fatalf("a call of the failed plugin: %v", err)
	}
	if !strings.Contains(fx.logged(), "failed to load in the background") {
		t.Fatalf("the failure was not logged:\n%s", fx.logged())
	}
	if len(fx.entries(t)) != 0 {
		t.Fatalf("the refused entry is still there: %v", fx.entries(t))
	}

	hostDir := t.TempDir()
	for _, c := range []struct {
		name string
		g    runtime.Grants
	}{
		{"another configuration value", runtime.Grants{Config: map[string]string{"greeting": "hello"}}},
		{"one more configuration key", runtime.Grants{Config: map[string]string{"greeting": "hi", "x": ""}}},
		{"a directory", runtime.Grants{Config: base.Config, Dirs: []runtime.Dir{{Host: hostDir, Guest: "/work"}}}},
		{"the same directory, writable", runtime.Grants{Config: base.Config, Dirs: []runtime.Dir{{Host: hostDir, Guest: "/work", Write: true}}}},
		{"a host", runtime.Grants{Config: base.Config, Hosts: []string{"example.com"}}},
		{"a memory grant", runtime.Grants{Config: base.Config, MemoryPages: 1000}},
		{"the real clock", runtime.Grants{Config: base.Config, Clock: true}},
	} {
		t.Run(c.name, func(t *testing.T) {
			os.RemoveAll(filepath.Join(fx.dir, "describe"))
			fx.load(t, base) // an entry for base only
			fx.tamper(t)
			if d := echoDescription(fx.load(t, c.g)); d != "Returns its text." {
				t.Fatalf("described as %q: the entry of other grants was used", d)
			}
		})
	}
}

// A hit lists the tools before the plugin is loaded; a call made meanwhile
// waits for the load and runs.
func TestDescribeCacheHitCallsWait(t *testing.T) {
	fx := newCacheFixture(t)
	fx.load(t, runtime.Grants{})
	p := fx.load(t, runtime.Grants{})
	var echo = p.Tools()[0]
	if echo.Info().Name != "echo" {
		t.Fatalf("first tool %q", echo.Info().Name)
	}
	r, err := echo.Execute(context.Background(), "c", json.RawMessage(`{"text":"after the load"}`), nil)
	if err != nil || r.Content.TextOf() != "after the load" {
		t.Fatalf("%v %v", r, err)
	}
	if err := p.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// A plugin whose description is cached but that fails to load in the
// background is listed, and says why: in Wait, in the log when it
// happens, and as the error of its calls and hooks. (A negative pool size
// is refused by the runtime, not by anything the cache key covers.)
func TestDescribeCacheBackgroundLoadError(t *testing.T) {
	fx := newCacheFixture(t)
	fx.load(t, runtime.Grants{})
	p, err := wasmtool.Load(context.Background(), rt(t), fx.wasm, wasmtool.Options{Name: "probe", PoolSize: -1, Cache: fx.cache, Logger: slog.New(slog.NewTextHandler(fx, nil))})
	if err != nil {
		t.Fatalf("the listing failed: %v", err)
	}
	defer p.Close()
	if len(p.Tools()) == 0 || p.BeforeToolCall() == nil {
		t.Fatal("the cached description lists no tools or hooks")
	}
	err = p.Wait(context.Background())
	var le *wasmtool.LoadError
	if !errors.As(err, &le) || le.Path != fx.wasm || !strings.Contains(err.Error(), "negative pool size") {
		t.Fatalf("Wait = %v", err)
	}
	if _, err := p.Tools()[0].Execute(context.Background(), "c", json.RawMessage(`{"text":"x"}`), nil); err == nil || !strings.Contains(err.Error(), "negative pool size") {
		t.Fatalf("a call: %v", err)
	}
	if _, err := p.BeforeToolCall().BeforeToolCall(context.Background(), &host.ToolCallContext{}); err == nil || !strings.Contains(err.Error(), "negative pool size") {
		t.Fatalf("the hook: %v", err)
	}
	if log := fx.logged(); !strings.Contains(log, "failed to load in the background") || !strings.Contains(log, "negative pool size") {
		t.Fatalf("not logged:\n%s", log)
	}
}

// A plugin file changed since it was hashed is read and described again:
// its stat differs.
func TestDescribeCacheFileChanged(t *testing.T) {
	fx := newCacheFixture(t)
	fx.load(t, runtime.Grants{})
	fx.tamper(t)
	b, _ := os.ReadFile(fx.wasm)
	// The same module with a custom section more: other bytes, another
	// sha256, the same description.
	os.WriteFile(fx.wasm, append(b, 0, 3, 2, 'z', 'z'), 0o644)
	p := fx.load(t, runtime.Grants{})
	if d := echoDescription(p); d != "Returns its text." {
		t.Fatalf("described as %q after the file changed", d)
	}
	if err := p.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// A corrupt entry, of any kind, is ignored with a debug note, and the
// plugin is described again.
func TestDescribeCacheCorruptEntries(t *testing.T) {
	for _, c := range []struct {
		name    string
		corrupt func([]byte) []byte
	}{
		{"truncated", func(b []byte) []byte { return b[:len(b)/2] }},
		{"empty", func([]byte) []byte { return nil }},
		{"not JSON", func([]byte) []byte { return []byte("\x00\xff garbage") }},
		{"another format", func(b []byte) []byte { return bytes.Replace(b, []byte(`"format":1`), []byte(`"format":99`), 1) }},
		{"an unknown field", func(b []byte) []byte { return bytes.Replace(b, []byte(`{"format"`), []byte(`{"extra":1,"format"`), 1) }},
		{"another key", func(b []byte) []byte { return bytes.Replace(b, []byte(`"key":"`), []byte(`"key":"0`), 1) }},
		{"an invalid description", func(b []byte) []byte { return bytes.Replace(b, []byte(`"abi":1`), []byte(`"abi":7`), 1) }},
		{"a tool name the ABI refuses", func(b []byte) []byte {
			return bytes.Replace(b, []byte(`"name":"echo"`), []byte(`"name":"bad name!"`), 1)
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			fx := newCacheFixture(t)
			fx.load(t, runtime.Grants{})
			for _, e := range fx.entries(t) {
				b, _ := os.ReadFile(e)
				os.WriteFile(e, c.corrupt(b), 0o600)
			}
			p := fx.load(t, runtime.Grants{})
			if err := p.Wait(context.Background()); err != nil {
				t.Fatal(err)
			}
			if d := echoDescription(p); d != "Returns its text." {
				t.Fatalf("described as %q", d)
			}
			if !strings.Contains(fx.logged(), "entry ignored") {
				t.Fatalf("no debug note:\n%s", fx.logged())
			}
		})
	}
}
