package config_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmagent/wasmagent/host/config"
	"github.com/wasmagent/wasmagent/host/wasmtool"
	"github.com/wasmagent/wasmagent/internal/wasmbuild"
	"github.com/wasmagent/wasmagent/runtime"
)

// problems are the *config.Error of a Load or Wire error, by key.
func problems(t *testing.T, err error) map[string]*config.Error {
	t.Helper()
	out := map[string]*config.Error{}
	for _, e := range unjoin(err) {
		var ce *config.Error
		if !errors.As(e, &ce) {
			t.Fatalf("%v is not a *config.Error", e)
		}
		out[ce.Key] = ce
	}
	return out
}

// A plugin that does not load is reported at the key it is about — the
// sha256 pin, the grant it needs (with what to write), else the plugin —
// and the configuration's error keeps the load's: errors.Is and errors.As
// see the runtime's and the loader's errors through it, as they see the
// system's for a file the configuration names.
func TestLoadErrorsKeepTheirCause(t *testing.T) {
	dir := t.TempDir()
	put := func(name string, wasm []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, wasm, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	needy := put("needy.wasm", wasmbuild.ConstPlugin(map[string]string{
		"describe": `{"abi":1,"name":"needy","tools":[{"name":"t","description":"d","parameters":{"type":"object"}}],` +
			`"needs":{"paths":[{"guest":"*","write":true}],"hosts":[{"host":"*"}],"config":[{"key":"token"}]}}`,
		"execute": `{}`,
	}))
	guard := put("guard.wasm", wasmbuild.ConstPlugin(map[string]string{
		"describe":         `{"abi":1,"name":"guard","hooks":["beforeToolCall"],"needs":{"hosts":[{"host":"api.example.com"}]}}`,
		"before_tool_call": `{}`,
	}))
	costly := put("costly.wasm", ifModule)
	path := write(t, `
[[tool]]
plugin = "`+needy+`"

[[tool]]
plugin = "CALC"
sha256 = "`+strings.Repeat("0", 64)+`"

[[hook]]
plugin = "`+guard+`"
`)
	_, err := wire(t, path)
	got := problems(t, err)
	var mg *wasmtool.MissingGrantsError
	if e := got["tool[0].grants.dirs"]; e == nil || e.Line != 7 || !errors.As(e, &mg) ||
		!strings.Contains(e.Msg, `dirs = [{ host = "HOST", guest = "/work", write = true }] in [tool.grants]`) ||
		!strings.Contains(e.Msg, `hosts = ["NAME"] in [tool.grants]`) || !strings.Contains(e.Msg, `token = "VALUE" in [tool.config]`) {
		t.Errorf("a plugin that needs grants: %#v\nall: %v", e, err)
	}
	var pin *wasmtool.PinError
	if e := got["tool[1].sha256"]; e == nil || e.Line != 12 || !errors.As(e, &pin) || pin.Want != strings.Repeat("0", 64) {
		t.Errorf("a wrong pin: %#v\nall: %v", e, err)
	}
	if e := got["hook[0].grants.hosts"]; e == nil || e.Line != 14 || !strings.Contains(e.Msg, `hosts = ["api.example.com"] in [hook.grants]`) {
		t.Errorf("a hook that needs a host: %#v\nall: %v", e, err)
	}
	if len(got) != 3 {
		t.Errorf("%d problems, want 3: %v", len(got), err)
	}
	big := wasmbuild.ConstModule(map[string]string{"describe": `{"abi":1,"name":"big","tools":[{"name":"t","description":"d","parameters":{"type":"object"}}]}`, "execute": `{}`})
	big.MemoryPages = 40
	_, err = wire(t, write(t, "[[tool]]\nplugin = \""+put("big.wasm", big.Encode())+"\"\n[tool.grants]\nmemory = \"1MiB\"\n"))
	var mem *runtime.MemoryGrantError
	if e := problems(t, err)["tool[0].grants.memory"]; e == nil || e.Line != 9 || !errors.As(e, &mem) || mem.Need != 40 || !strings.HasSuffix(e.Msg, `grant at least memory = "3MiB" in [tool.grants]`) {
		t.Errorf("a module over its memory grant: %v", err)
	}
	_, err = wire(t, write(t, "max_compile_cost = 1\n[[tool]]\nplugin = \""+costly+"\"\n"))
	var cc *runtime.CompileCostError
	if e := problems(t, err)["tool[0].plugin"]; e == nil || !errors.Is(e, runtime.ErrCompileCost) || !errors.As(e, &cc) {
		t.Errorf("a plugin over the compile cost cap: %v", err)
	}
	// A configuration the plugin's SDK refuses when describing: at the
	// entry's config, the plugin's own words kept.
	_, err = wire(t, write(t, "[[hook]]\nplugin = \""+wasmbuild.ForTest(t, "plugins/policy")+"\"\n[hook.config]\nrules = \"nope\"\n"))
	var call *runtime.CallError
	if e := problems(t, err)["hook[0].config"]; e == nil || e.Line != 8 || !errors.Is(e, runtime.ErrPlugin) || !errors.As(e, &call) || !strings.Contains(e.Msg, "describe: configuration: policy: rules") {
		t.Errorf("a configuration the plugin refuses: %v", err)
	}
	// Load's file problems keep the system's error.
	_, err = config.Load(write(t, "[agent]\nsystem_prompt_file = \"nope.md\"\n"))
	if e := problems(t, err)["agent.system_prompt_file"]; e == nil || !errors.Is(e, fs.ErrNotExist) {
		t.Errorf("a missing system_prompt_file: %v", err)
	}
}
