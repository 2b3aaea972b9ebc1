package runtime_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/wasmagent/wasmagent/internal/wasmbuild"
	"github.com/wasmagent/wasmagent/runtime"
)

// causes are the sentinels a call error matches exactly one of.
var causes = map[string]error{
	"ErrPlugin": runtime.ErrPlugin, "ErrTrap": runtime.ErrTrap, "ErrTimeout": runtime.ErrTimeout,
	"ErrDeadline": runtime.ErrDeadline, "ErrAborted": runtime.ErrAborted, "ErrCap": runtime.ErrCap,
	"ErrCallDepth": runtime.ErrCallDepth, "ErrHost": runtime.ErrHost,
}

// causeOf names the one cause err matches, failing if it matches none or
// several.
func causeOf(t *testing.T, err error) string {
	t.Helper()
	var got []string
	for name, c := range causes {
		if errors.Is(err, c) {
			got = append(got, name)
		}
	}
	if len(got) != 1 {
		t.Fatalf("err = %v matches %v, want exactly one cause", err, got)
	}
	return got[0]
}

// Each way a call ends has its own cause and message: the plugin's own
// timeout, the caller's earlier deadline, an abort, a trap, the plugin's
// error, a cap, a broken ABI.
func TestEachEndHasItsCause(t *testing.T) {
	hl := pluginOf(t, "hostloops.wasm", hostLoops(), runtime.PluginOptions{Grants: runtime.Grants{Timeout: 200 * time.Millisecond, MemoryPages: 1024, MaxHostAllocBytes: 64 << 20}})
	slow := pluginOf(t, "hostloops.wasm", hostLoops(), runtime.PluginOptions{Grants: uncapped(time.Minute)})
	deadline := func() context.Context {
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		t.Cleanup(cancel)
		return ctx
	}
	aborted := func() context.Context {
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(100*time.Millisecond, cancel)
		return ctx
	}
	for _, c := range []struct {
		name   string
		p      *runtime.Plugin
		ctx    func() context.Context
		export string
		cause  string
		text   string
	}{
		{"grant timeout", hl, context.Background, "spin", "ErrTimeout", "timeout of 200ms"},
		{"caller's deadline", slow, deadline, "spin", "ErrDeadline", "caller's deadline"},
		{"caller's deadline in a host loop", slow, deadline, "logs", "ErrDeadline", "caller's deadline"},
		{"abort", slow, aborted, "spin", "ErrAborted", "aborted"},
		{"abort in a host loop", slow, aborted, "random", "ErrAborted", "aborted"},
		{"trap", hl, context.Background, "trap", "ErrTrap", "unreachable"},
		{"plugin error", hl, context.Background, "rc7", "ErrPlugin", "returned 7"},
		{"cap", hl, context.Background, "alloc", "ErrCap", "MaxHostAllocBytes"},
		{"output offset out of bounds", hl, context.Background, "oob_output", "ErrTrap", "outside the plugin's host memory"},
		{"wrong signature", hl, context.Background, "two_results", "ErrTrap", `"two_results" has the signature () -> (i32, i32); the host calls it as () -> (i32)`},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := c.p.Call(c.ctx(), c.export, nil, nil)
			if got := causeOf(t, err); got != c.cause {
				t.Fatalf("cause %s, want %s: %v", got, c.cause, err)
			}
			if !strings.Contains(err.Error(), c.text) {
				t.Fatalf("err = %q, want it to say %q", err, c.text)
			}
			callError(t, err)
		})
	}
}

// Time-based ends still match the context errors, for callers that only
// know those.
func TestStopCausesMatchContextErrors(t *testing.T) {
	p := pluginOf(t, "hostloops.wasm", hostLoops(), runtime.PluginOptions{Grants: runtime.Grants{Timeout: time.Minute}})
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if _, err := p.Call(ctx, "spin", nil, nil); !errors.Is(err, context.DeadlineExceeded) || errors.Is(err, runtime.ErrTimeout) {
		t.Fatalf("caller's deadline: %v", err)
	}
	ctx, cancel = context.WithCancel(context.Background())
	cancel()
	if _, err := p.Call(ctx, "spin", nil, nil); !errors.Is(err, context.Canceled) || !errors.Is(err, runtime.ErrAborted) {
		t.Fatalf("cancelled before the call: %v", err)
	}
}

// A guest sleep cut short by the deadline never returns success, whether
// the guest returns right after it (a raw WASI sleep) or sleeps again (a
// Go plugin's time.Sleep).
func TestSleepCutShortIsNotSuccess(t *testing.T) {
	hl := pluginOf(t, "hostloops.wasm", hostLoops(), runtime.PluginOptions{Grants: runtime.Grants{Timeout: 100 * time.Millisecond}})
	_, err := hl.Call(context.Background(), "sleep_once", nil, nil)
	if causeOf(t, err) != "ErrTimeout" {
		t.Fatalf("raw WASI sleep: err = %v, want ErrTimeout", err)
	}
	p := probe(t, runtime.Grants{Timeout: 100 * time.Millisecond}, 1)
	_, err = execute(context.Background(), p, "sleep", map[string]any{"ms": 5000}, nil)
	if causeOf(t, err) != "ErrTimeout" {
		t.Fatalf("Go sleep: err = %v, want ErrTimeout", err)
	}
}

// Every export the host calls has its signature checked at load, with a
// message naming the export and the signature the host expects.
func TestExportSignaturesCheckedAtLoad(t *testing.T) {
	I32, I64 := wasmbuild.I32, wasmbuild.I64
	for _, c := range []struct {
		export string
		f      wasmbuild.Func
		want   string
	}{
		{"execute", wasmbuild.Func{Results: []byte{I32, I32}, Body: ops(i32c(0), i32c(0))}, "() -> (i32)"},
		{"describe", wasmbuild.Func{Results: []byte{I64}, Body: i64c(0)}, "() -> (i32)"},
		{"prepare_arguments", wasmbuild.Func{Params: []byte{I32}, Results: []byte{I32}, Body: i32c(0)}, "() -> (i32)"},
		{"before_tool_call", wasmbuild.Func{}, "() -> (i32)"},
		{"after_tool_call", wasmbuild.Func{Params: []byte{I64}, Results: []byte{I32}, Body: i32c(0)}, "() -> (i32)"},
		{"_initialize", wasmbuild.Func{Results: []byte{I32}, Body: i32c(0)}, "() -> ()"},
		{"_start", wasmbuild.Func{Params: []byte{I32}}, "() -> ()"},
		{"hs_init", wasmbuild.Func{}, "(i32, i32) -> ()"},
	} {
		t.Run(c.export, func(t *testing.T) {
			wasm := wasmbuild.Module{Funcs: []wasmbuild.Func{c.f}, Exports: map[string]uint32{c.export: 0}}.Encode()
			_, err := rt(t).Compile(context.Background(), c.export+".wasm", wasm)
			if err == nil || !strings.Contains(err.Error(), `"`+c.export+`"`) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want a refusal naming %s and %s", err, c.export, c.want)
			}
		})
	}
	// Other exports are the module's business until called.
	wasm := wasmbuild.Module{Funcs: []wasmbuild.Func{{Params: []byte{I32}, Results: []byte{I64, I64}, Body: ops(i64c(0), i64c(0))}}, Exports: map[string]uint32{"helper": 0}}.Encode()
	if _, err := rt(t).Compile(context.Background(), "helper.wasm", wasm); err != nil {
		t.Fatal(err)
	}
}

// Runaway recursion ends with its own cause, not as a crash or a timeout.
func TestRunawayRecursionIsCallDepth(t *testing.T) {
	if testing.Short() {
		t.Skip("may grow a call stack of hundreds of MB")
	}
	p := pluginOf(t, "recursion.wasm", module(execute0(call(0)), 1), runtime.PluginOptions{Grants: runtime.Grants{Timeout: time.Minute}})
	_, err := p.Call(context.Background(), "execute", nil, nil)
	if c := causeOf(t, err); c != "ErrCallDepth" {
		t.Fatalf("cause %s, want ErrCallDepth: %v", c, err)
	}
}
