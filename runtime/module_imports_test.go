package runtime_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/wasmagent/wasmagent/internal/wasmbuild"
	"github.com/wasmagent/wasmagent/runtime"
)

// importing is a module that imports mod.name with the type params →
// results, and whose execute returns 0 without calling it.
func importing(mod, name string, params, results []byte) []byte {
	return wasmbuild.Module{
		Imports: []wasmbuild.Import{{Module: mod, Name: name, Func: wasmbuild.Func{Params: params, Results: results}}},
		Funcs:   []wasmbuild.Func{{Results: []byte{wasmbuild.I32}, Body: i32c(0)}},
		Exports: map[string]uint32{"execute": 1}, MemoryPages: 1,
	}.Encode()
}

// Every host function imported under every signature of a set that holds
// the real ones: exactly one signature per function is accepted at load,
// and that module instantiates and runs; every other is refused at load
// with a message naming the import and both signatures. On the old main
// the wrong ones loaded and failed at each call ("signature mismatch").
func TestImportSignaturesCheckedAtLoad(t *testing.T) {
	I32, I64 := wasmbuild.I32, wasmbuild.I64
	paramSets := [][]byte{nil, {I64}, {I64, I64}, {I64, I32}, {I32}, {I32, I32}, {I32, I32, I32, I32}}
	resultSets := [][]byte{nil, {I32}, {I64}}
	names := append(runtime.HostFunctionNames(), "wasi_snapshot_preview1.fd_write", "wasi_snapshot_preview1.random_get", "wasi_snapshot_preview1.proc_exit")
	slices.Sort(names)
	ctx := context.Background()
	for _, full := range names {
		dot := strings.LastIndex(full, ".")
		mod, name := full[:dot], full[dot+1:]
		var accepted []string
		for _, params := range paramSets {
			for _, results := range resultSets {
				sig := fmt.Sprintf("%v→%v", params, results)
				m, err := rt(t).Compile(ctx, "imports.wasm", importing(mod, name, params, results))
				if err != nil {
					if !strings.Contains(err.Error(), full) {
						t.Errorf("%s %s: the error does not name the import: %v", full, sig, err)
					}
					continue
				}
				accepted = append(accepted, sig)
				p, err := rt(t).NewPlugin(m, runtime.PluginOptions{})
				if err != nil {
					t.Errorf("%s %s: loaded, then: %v", full, sig, err)
					continue
				}
				if _, err := p.Call(ctx, "execute", nil, nil); err != nil {
					t.Errorf("%s %s: loaded, then the call failed: %v", full, sig, err)
				}
				p.Close()
			}
		}
		if len(accepted) != 1 {
			t.Errorf("%s: accepted under %d signatures %v, want exactly one", full, len(accepted), accepted)
		}
	}
}

// Imports the host does not provide at all are refused at load, by name:
// unknown functions in each host module and outside them, and globals
// (the host exports none). Before, the unknown WASI function and the
// global loaded and failed at every instantiation.
func TestUnknownImportsRefusedAtLoad(t *testing.T) {
	I32 := wasmbuild.I32
	global := withSection(module(execute0(i32c(0)), 1), 2, slices.Concat(wasmbuild.ULEB(1),
		[]byte{15}, []byte("extism:host/env"), []byte{1, 'g'}, []byte{0x03, I32, 0x00}))
	for _, c := range []struct {
		name, want string
		wasm       []byte
	}{
		{"wasi function", "wasi_snapshot_preview1.no_such_function", importing("wasi_snapshot_preview1", "no_such_function", []byte{I32}, nil)},
		{"extism function", "extism:host/env.no_such_function", importing("extism:host/env", "no_such_function", nil, nil)},
		{"user function", "extism:host/user.alloc", importing("extism:host/user", "alloc", []byte{wasmbuild.I64}, []byte{wasmbuild.I64})},
		{"other module", "env.abort", importing("env", "abort", nil, nil)},
		// AssemblyScript's imports for a JavaScript host say what replaces them.
		{"assemblyscript console.log", "env.console.log is one of AssemblyScript's imports for a JavaScript host", importing("env", "console.log", []byte{I32}, nil)},
		{"assemblyscript seed", "leave out Math.random", importing("env", "seed", nil, []byte{0x7c})}, // () -> f64,
		{"global", "extism:host/env.g", global},
		{"wasi without a memory", "wasi_snapshot_preview1.fd_write, which reads and writes the module's memory, but the module defines no memory", noMemory("fd_write", []byte{I32, I32, I32, I32}, []byte{I32})},
	} {
		_, err := rt(t).Compile(context.Background(), c.name+".wasm", c.wasm)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want it to name %s", c.name, err, c.want)
		}
	}
	// A WASI function that takes no pointer needs no memory.
	p := pluginOf(t, "exit.wasm", noMemory("sched_yield", nil, []byte{I32}), runtime.PluginOptions{})
	if _, err := p.Call(context.Background(), "execute", nil, nil); err != nil {
		t.Fatalf("a module without a memory that imports sched_yield: %v", err)
	}
}

// noMemory is importing without a memory.
func noMemory(name string, params, results []byte) []byte {
	return wasmbuild.Module{
		Imports: []wasmbuild.Import{{Module: "wasi_snapshot_preview1", Name: name, Func: wasmbuild.Func{Params: params, Results: results}}},
		Funcs:   []wasmbuild.Func{{Results: []byte{wasmbuild.I32}, Body: i32c(0)}},
		Exports: map[string]uint32{"execute": 1},
	}.Encode()
}
