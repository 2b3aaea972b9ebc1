package runtime_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/wasmagent/wasmagent/internal/wasmbuild"
	"github.com/wasmagent/wasmagent/runtime"
)

func TestPluginErrorCarriesItsMessage(t *testing.T) {
	p := probe(t, runtime.Grants{}, 0)
	_, err := execute(context.Background(), p, "fail", map[string]any{"message": "no such file: a.txt"}, nil)
	if !errors.Is(err, runtime.ErrPlugin) {
		t.Fatalf("err = %v, want ErrPlugin", err)
	}
	if ce := callError(t, err); ce.Message != "no such file: a.txt" {
		t.Fatalf("message = %q", ce.Message)
	}
}

// The plugin's message is cut to MaxMessageBytes.
func TestLongPluginMessageIsCut(t *testing.T) {
	p := probe(t, runtime.Grants{}, 0)
	_, err := execute(context.Background(), p, "fail", map[string]any{"message": strings.Repeat("é", 10000)}, nil)
	ce := callError(t, err)
	if len(ce.Message) > runtime.MaxMessageBytes+64 || !strings.Contains(ce.Message, "bytes cut") {
		t.Fatalf("message of %d bytes: %.80q…", len(ce.Message), ce.Message)
	}
}

func TestGoPanicIsAnError(t *testing.T) {
	p := probe(t, runtime.Grants{}, 0)
	_, err := execute(context.Background(), p, "panic", struct{}{}, nil)
	if !errors.Is(err, runtime.ErrPlugin) || !strings.Contains(err.Error(), "panicked in execute: boom") {
		t.Fatalf("err = %v", err)
	}
}

// A panic the SDK cannot recover kills the Go runtime in the plugin (it
// traps): the error gives the trap and the start of the plugin's stderr.
func TestCrashedPluginReportsStderr(t *testing.T) {
	p := probe(t, runtime.Grants{}, 0)
	_, err := execute(context.Background(), p, "crash", struct{}{}, nil)
	if err == nil || !strings.Contains(err.Error(), "panic: crash on a goroutine") {
		t.Fatalf("err = %v", err)
	}
	if r, err := execute(context.Background(), p, "echo", map[string]any{"text": "up"}, nil); err != nil || text(r) != "up" {
		t.Fatalf("after a crash: %v", err)
	}
}

func TestTrap(t *testing.T) {
	p := pluginOf(t, "echo.wasm", wasmbuild.EchoPlugin(), runtime.PluginOptions{})
	_, err := p.Call(context.Background(), "trap", nil, nil)
	if err == nil || !strings.Contains(err.Error(), "unreachable") || strings.Contains(err.Error(), "\n") {
		t.Fatalf("err = %q, want one line naming the trap", err)
	}
}

func TestMissingExport(t *testing.T) {
	p := probe(t, runtime.Grants{}, 0)
	_, err := p.Call(context.Background(), "nope", nil, nil)
	if err == nil || !strings.Contains(err.Error(), `no export "nope"`) || !strings.Contains(err.Error(), "execute") {
		t.Fatalf("err = %v", err)
	}
}

func TestBadModules(t *testing.T) {
	imp := func(mod, name string) []byte {
		return wasmbuild.Module{
			Imports: []wasmbuild.Import{{Module: mod, Name: name}},
			Funcs:   []wasmbuild.Func{{Results: []byte{wasmbuild.I32}, Body: append([]byte{0x41}, wasmbuild.SLEB(0)...)}},
			Exports: map[string]uint32{"run": 1},
		}.Encode()
	}
	for _, c := range []struct {
		name string
		wasm []byte
		want string
	}{
		{"garbage", []byte("not wasm at all"), "not a valid Wasm module"},
		{"truncated", wasmbuild.EchoPlugin()[:40], "not a valid Wasm module"},
		{"unknown import", imp("env", "get_secret"), "env.get_secret"},
		{"unknown extism function", imp("extism:host/env", "steal"), "extism:host/env.steal"},
		{"reserved import", imp("wasmagent", "tick"), "reserved for the host"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := rt(t).Compile(context.Background(), c.name+".wasm", c.wasm)
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), c.name+".wasm") {
				t.Fatalf("err = %v, want it to name the file and %q", err, c.want)
			}
		})
	}
}

// An import the host has but with the wrong signature is refused at load
// (Compile), with both signatures; TestImportSignaturesCheckedAtLoad
// tries every host function.
func TestImportSignatureMismatch(t *testing.T) {
	wasm := wasmbuild.Module{
		Imports: []wasmbuild.Import{{Module: "extism:host/env", Name: "alloc", Func: wasmbuild.Func{Params: []byte{wasmbuild.I32}}}},
		Funcs:   []wasmbuild.Func{{Results: []byte{wasmbuild.I32}, Body: append([]byte{0x41}, wasmbuild.SLEB(0)...)}},
		Exports: map[string]uint32{"run": 1},
	}.Encode()
	_, err := rt(t).Compile(context.Background(), "sig.wasm", wasm)
	if err == nil || !strings.Contains(err.Error(), "extism:host/env.alloc as (i32) -> (), which the host provides as (i64) -> (i64)") {
		t.Fatalf("err = %v", err)
	}
}
