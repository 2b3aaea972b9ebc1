package assemblyscript_test

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"github.com/wasmagent/wasmagent/host"
	"github.com/wasmagent/wasmagent/internal/plugintest"
	"github.com/wasmagent/wasmagent/internal/wasmbuild"
	"github.com/wasmagent/wasmagent/runtime"
	"github.com/wasmagent/wasmagent/sdk"
)

// describer calls asprobe's describe export under grants and returns its
// output as the plugin wrote it; the module is compiled once.
func describer(t *testing.T) func(runtime.Grants) []byte {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and runs the plugin in the host")
	}
	ctx := context.Background()
	rt := plugintest.Runtime(t)
	m, err := rt.CompileFile(ctx, wasmbuild.ASForTest(t, probe))
	if err != nil {
		t.Fatal(err)
	}
	return func(g runtime.Grants) []byte {
		t.Helper()
		rp, err := rt.NewPlugin(m, runtime.PluginOptions{Name: "asprobe", Grants: g})
		if err != nil {
			t.Fatal(err)
		}
		defer rp.Close()
		out, err := rp.Call(ctx, sdk.ExportDescribe, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
}

// sameAsGoSDK decodes a description with the Go SDK's types, refusing
// unknown fields, and checks they encode it back byte for byte.
func sameAsGoSDK(t *testing.T, raw []byte) *sdk.Description {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	var d sdk.Description
	if err := dec.Decode(&d); err != nil {
		t.Fatalf("%v: %s", err, raw)
	}
	again, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(raw, again) {
		t.Errorf("the AS SDK wrote\n %s\nthe Go SDK's types write\n %s", raw, again)
	}
	return &d
}

// The AssemblyScript SDK writes the description byte for byte as the Go
// SDK's types encode it: the same field names (a misspelt one is refused
// here), in the same order, the same fields left out when unset. So a
// field the Go SDK gains and this one lacks, or names differently, fails.
func TestDescriptionMatchesGoSDK(t *testing.T) {
	describe := describer(t)
	for _, g := range []runtime.Grants{{}, gateGrants} {
		sameAsGoSDK(t, describe(g))
	}
}

// Every combination of the four hints (unset, false, true each) is
// described as the Go SDK's sdk.Annotations encodes it: set hints only,
// false kept, no annotations at all when none is set.
func TestEveryAnnotationCombination(t *testing.T) {
	describe := describer(t)
	yes, no := true, false
	states := []struct {
		ch string
		v  *bool
	}{{"-", nil}, {"f", &no}, {"t", &yes}}
	n := 0
	for _, a := range states {
		for _, b := range states {
			for _, c := range states {
				for _, d := range states {
					hints := a.ch + b.ch + c.ch + d.ch
					desc := sameAsGoSDK(t, describe(runtime.Grants{Config: map[string]string{"hints": hints}}))
					var want *sdk.Annotations
					if a.v != nil || b.v != nil || c.v != nil || d.v != nil {
						want = &sdk.Annotations{ReadOnly: a.v, Destructive: b.v, Idempotent: c.v, OpenWorld: d.v}
					}
					last := desc.Tools[len(desc.Tools)-1]
					if last.Name != "hinted" || jsonOf(last.Annotations) != jsonOf(want) {
						t.Errorf("hints %s: tool %s annotations %s, want %s", hints, last.Name, jsonOf(last.Annotations), jsonOf(want))
					}
					n++
				}
			}
		}
	}
	if n != 81 {
		t.Fatalf("%d combinations", n)
	}
}

// Annotations: each hint set is sent, true or false; one not set claims
// nothing; a tool with none sends none. The host passes them on as the
// tool's hints.
func TestAnnotations(t *testing.T) {
	p := load(t, runtime.Grants{})
	yes, no := true, false
	want := map[string]*sdk.Annotations{
		"echo":      {ReadOnly: &yes, Idempotent: &yes, OpenWorld: &no},
		"terminate": {Destructive: &no},
		"http":      {OpenWorld: &yes},
		"config":    nil,
	}
	for _, spec := range p.Description().Tools {
		w, listed := want[spec.Name]
		if !listed {
			continue
		}
		if jsonOf(spec.Annotations) != jsonOf(w) {
			t.Errorf("%s: annotations %s, want %s", spec.Name, jsonOf(spec.Annotations), jsonOf(w))
		}
	}
	hints := map[string]host.ToolHints{}
	for _, tool := range p.Tools() {
		hints[tool.Info().Name] = tool.Info().Hints
	}
	if h := hints["echo"]; h.ReadOnly == nil || !*h.ReadOnly || h.OpenWorld == nil || *h.OpenWorld || h.Destructive != nil {
		t.Errorf("echo's hints in the host: %+v", h)
	}
	if h := hints["config"]; h != (host.ToolHints{}) {
		t.Errorf("config claims %+v, want nothing", h)
	}
}

// registerGate sets gate in the description (and lists the hook);
// registerBeforeToolCall does not.
func TestGateDescription(t *testing.T) {
	if d := load(t, gateGrants).Description(); !d.Gate || len(d.Hooks) == 0 || d.Hooks[0] != sdk.HookBeforeToolCall {
		t.Fatalf("registerGate: gate %v, hooks %v", d.Gate, d.Hooks)
	}
	if d := load(t, runtime.Grants{}).Description(); d.Gate {
		t.Fatal("registerBeforeToolCall: the description says gate")
	}
}
