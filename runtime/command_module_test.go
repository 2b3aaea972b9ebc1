package runtime_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/wasmagent/wasmagent/internal/wasmbuild"
	"github.com/wasmagent/wasmagent/runtime"
)

// A Go program built without -buildmode=c-shared runs main and exits
// when instantiated: it is refused at load, before its megabytes are
// compiled, and the error says how to build it.
func TestCommandModuleIsRefused(t *testing.T) {
	_, err := rt(t).CompileFile(context.Background(), wasmbuild.ForTest(t, "internal/testplugins/command"))
	if err == nil || !strings.Contains(err.Error(), "a Go program built without -buildmode=c-shared") || !strings.Contains(err.Error(), "go build -trimpath -buildmode=c-shared") {
		t.Fatalf("err = %v", err)
	}
}

// A command whose _start exits (one the load check cannot tell from a
// Go program: here a hand-made one) is refused when instantiated, with
// its exit code and the same advice.
func TestCommandThatExitsIsRefused(t *testing.T) {
	p := pluginOf(t, "exits.wasm", commandModule(true, false, nil), runtime.PluginOptions{})
	_, err := p.Call(context.Background(), "describe", nil, nil)
	if err == nil || !strings.Contains(err.Error(), "exited with code 3") || !strings.Contains(err.Error(), "-buildmode=c-shared") {
		t.Fatalf("err = %v", err)
	}
}

// The load check refuses exactly the modules Go's toolchain links as
// commands: every mix of _start, an initialiser and the custom sections
// of Go's linker, TinyGo's or none. A module with an initialiser, or
// not linked by Go's toolchain, is not refused at load.
func TestGoCommandIsToldApart(t *testing.T) {
	sections := map[string][][2]string{
		"none":              nil,
		"go:buildid":        {{"go:buildid", "abc/def"}},
		"producers gc":      {{"producers", producers("Go", "Go cmd/compile")}},
		"producers tinygo":  {{"producers", producers("Go", "TinyGo")}},
		"other custom":      {{"some.tool", "x"}},
		"buildid+producers": {{"go:buildid", "abc"}, {"producers", producers("Go", "Go cmd/compile")}},
	}
	for name, custom := range sections {
		for _, start := range []bool{false, true} {
			for _, init := range []bool{false, true} {
				gc := name == "go:buildid" || name == "producers gc" || name == "buildid+producers"
				want := start && !init && gc
				wasm := commandModule(start, init, custom)
				_, err := rt(t).Compile(context.Background(), fmt.Sprintf("%s-%v-%v", name, start, init), wasm)
				refused := err != nil && strings.Contains(err.Error(), "a Go program built without -buildmode=c-shared")
				if refused != want {
					t.Errorf("%s, _start %v, _initialize %v: refused %v, want %v (%v)", name, start, init, refused, want, err)
				}
				if err != nil && !refused {
					t.Errorf("%s, _start %v, _initialize %v: %v", name, start, init, err)
				}
			}
		}
	}
}

// commandModule is a module exporting describe (which returns 0) and, as
// asked, _start (which exits with code 3) and _initialize, followed by
// the custom sections given as name and content.
func commandModule(start, init bool, custom [][2]string) []byte {
	i32 := []byte{wasmbuild.I32}
	m := wasmbuild.Module{
		Imports: []wasmbuild.Import{{Module: "wasi_snapshot_preview1", Name: "proc_exit", Func: wasmbuild.Func{Params: i32}}},
		Funcs: []wasmbuild.Func{
			{Results: i32, Body: append([]byte{0x41}, wasmbuild.SLEB(0)...)},
			{Body: append(append([]byte{0x41}, wasmbuild.SLEB(3)...), 0x10, 0)},
			{},
		},
		Exports:     map[string]uint32{"describe": 1},
		MemoryPages: 1,
	}
	if start {
		m.Exports["_start"] = 2
	}
	if init {
		m.Exports["_initialize"] = 3
	}
	wasm := m.Encode()
	for _, c := range custom {
		body := append(wasmbuild.ULEB(uint32(len(c[0]))), c[0]...)
		body = append(body, c[1]...)
		wasm = append(wasm, 0)
		wasm = append(wasm, wasmbuild.ULEB(uint32(len(body)))...)
		wasm = append(wasm, body...)
	}
	return wasm
}

// producers is the body of a producers section (after its name) with a
// language and a processed-by field of one value each, as Go's linker
// writes it.
func producers(language, processedBy string) string {
	name := func(s string) string { return string(wasmbuild.ULEB(uint32(len(s)))) + s }
	return "\x02" + name("language") + "\x01" + name(language) + name("1.0") +
		name("processed-by") + "\x01" + name(processedBy) + name("1.0")
}
