package telemetry

import (
	"context"
	"strings"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/wasmagent/wasmagent/host"
	"github.com/wasmagent/wasmagent/host/config"
)

// policyConfig: calc, and the policy hook denying "666".
const policyConfig = `
[[tool]]
plugin = "CALC"
pool = 0

[[hook]]
plugin = "POLICY"
[hook.config]
rules = [{ name = "no-666", action = "deny", tools = ["calc"], arg = "expression", match = "666", reason = "not that number" }]
`

// runTurn runs one turn of three calc calls, two allowed and run in
// parallel, one blocked by the policy hook, then a closing answer, with
// telemetry cfg; it returns the spans and the wiring.
func runTurn(t *testing.T, cfg config.Telemetry) (*memory, *config.Setup, tracetest.SpanStubs) {
	t.Helper()
	path := writeConfig(t, policyConfig,
		toolCalls([3]string{"c1", "calc", `{"expression":"6*7"}`}, [3]string{"c2", "calc", `{"expression":"2+3"}`}, [3]string{"c3", "calc", `{"expression":"666+1"}`}),
		`{"content":"done","usage":{"input":11,"output":5}}`)
	f, err := config.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	m := newMemory(t, cfg)
	s, err := f.Wire(context.Background(), config.WireOptions{Observer: m.HostObserver(), RuntimeObserver: m.RuntimeObserver()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	for _, tool := range s.Tools {
		m.NameTool(tool.Name, tool.Plugin.Name(), tool.Plugin.SHA256())
	}
	a := host.NewAgent(s.Options)
	if err := a.PromptText(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	return m, s, m.ended(t)
}

func TestSpanTreeOfOneTurn(t *testing.T) {
	m, s, spans := runTurn(t, config.Telemetry{})
	tr := newTree(spans)
	var runs []tracetest.SpanStub
	for _, r := range tr.children[""] {
		if r.Name == "wasmagent.run" {
			runs = append(runs, r)
		} else if r.Name != "wasmagent.plugin.call" || str(r, attrExport) != "describe" {
			t.Errorf("a root span %s %v that is neither the run nor loading a plugin", r.Name, r.Attributes)
		}
	}
	if len(runs) != 1 {
		t.Fatalf("runs = %v, want one", names(runs))
	}
	run := runs[0]
	turns := tr.kids(run, "wasmagent.turn")
	if len(turns) != 2 || len(tr.kids(run, "")) != 2 {
		t.Fatalf("run's children = %v, want two turns", names(tr.kids(run, "")))
	}
	turn := turns[0]
	if turns[1].StartTime.Before(turn.StartTime) {
		turn = turns[1]
	}
	if got := names(tr.kids(turn, "wasmagent.model")); len(got) != 1 {
		t.Fatalf("first turn's model requests = %v", got)
	}
	tools := tr.kids(turn, "wasmagent.tool")
	if len(tools) != 3 {
		t.Fatalf("first turn's tool calls = %v, want 3 siblings", names(tools))
	}
	sha := s.Tools[0].Plugin.SHA256()
	for _, tool := range tools {
		id := str(tool, attrToolCallID)
		if str(tool, attrTool) != "calc" || str(tool, attrSHA256) != sha || str(tool, attrPlugin) == "" {
			t.Errorf("%s: attributes %v lack the tool or its plugin", id, tool.Attributes)
		}
		if _, ok := attr(tool, attrArgsBytes); !ok {
			t.Errorf("%s: no %s", id, attrArgsBytes)
		}
		hooks := tr.kids(tool, "wasmagent.hook")
		if len(hooks) != 1 || str(hooks[0], attrHookKind) != "beforeToolCall" {
			t.Fatalf("%s: hooks = %v", id, names(hooks))
		}
		if pc := tr.kids(hooks[0], "wasmagent.plugin.call"); len(pc) != 1 || str(pc[0], attrExport) != "before_tool_call" {
			t.Errorf("%s: the hook's plugin calls = %v (%v)", id, names(pc), pc)
		}
		calls := tr.kids(tool, "wasmagent.plugin.call")
		switch id {
		case "c3":
			if str(tool, attrOutcome) != "blocked" || str(hooks[0], attrDecision) != "block" {
				t.Errorf("c3: outcome %q, decision %q; want blocked by the hook", str(tool, attrOutcome), str(hooks[0], attrDecision))
			}
			if len(calls) != 0 {
				t.Errorf("c3 was blocked but called its plugin: %v", names(calls))
			}
		default:
			if str(tool, attrOutcome) != "ok" || str(hooks[0], attrDecision) != "allow" || tool.Status.Code == codes.Error {
				t.Errorf("%s: outcome %q, decision %q, status %v", id, str(tool, attrOutcome), str(hooks[0], attrDecision), tool.Status)
			}
			if len(calls) != 1 || str(calls[0], attrSHA256) != sha || str(calls[0], attrOutcome) != "ok" {
				t.Fatalf("%s: plugin calls = %v", id, calls)
			}
			// calc has no pool: its instance is made on demand, inside the call.
			if inst := tr.kids(calls[0], "wasmagent.plugin.instantiate"); len(inst) != 1 || str(inst[0], attrSHA256) != sha {
				t.Errorf("%s: instances made in the call = %v", id, names(inst))
			}
		}
		if tool.EndTime.After(turn.EndTime) || tool.StartTime.Before(turn.StartTime) {
			t.Errorf("%s does not lie within its turn", id)
		}
	}
	ids := map[string]bool{}
	for _, sp := range spans {
		ids[sp.SpanContext.SpanID().String()] = true
	}
	for _, sp := range spans {
		if sp.Parent.IsValid() && !ids[sp.Parent.SpanID().String()] {
			t.Errorf("%s's parent was never ended", sp.Name)
		}
		for _, a := range sp.Attributes {
			if v := a.Value.Emit(); strings.Contains(v, "6*7") || strings.Contains(v, "not that number") || string(a.Key) == attrArgs || string(a.Key) == attrResult {
				t.Errorf("%s carries %s=%q without the audit switches", sp.Name, a.Key, v)
			}
		}
	}
	tool := attribute.String(attrTool, "calc")
	if ok, blocked := m.sum(t, "wasmagent.tool.calls", tool, attribute.String(attrOutcome, "ok")), m.sum(t, "wasmagent.tool.calls", tool, attribute.String(attrOutcome, "blocked")); ok != 2 || blocked != 1 {
		t.Errorf("wasmagent.tool.calls: ok %d, blocked %d; want 2 and 1", ok, blocked)
	}
	if n := m.sum(t, "wasmagent.hook.calls", attribute.String(attrDecision, "block")); n != 1 {
		t.Errorf("wasmagent.hook.calls blocking = %d, want 1", n)
	}
	if n := m.sum(t, "wasmagent.model.tokens", attribute.String(attrTokenType, "input")); n != 11 {
		t.Errorf("input tokens = %d, want 11", n)
	}
	if n := m.sum(t, "wasmagent.plugin.calls", attribute.String(attrExport, "before_tool_call")); n != 3 {
		t.Errorf("hook plugin calls = %d, want 3", n)
	}
	if n := m.sum(t, "wasmagent.plugin.instantiations", attribute.String(attrPlugin, s.Tools[0].Plugin.Name()), attribute.Bool(attrOnDemand, true)); n < 2 {
		t.Errorf("calc instances made on demand = %d, want at least 2", n)
	}
	if n := m.sum(t, "wasmagent.runs", attribute.String(attrOutcome, "ok")); n != 1 {
		t.Errorf("runs = %d, want 1", n)
	}
}

// TestAuditSwitchesLetArgumentsIn: with [telemetry] arguments and results
// on, the tool spans carry them, cut to max_field_bytes.
func TestAuditSwitchesLetArgumentsIn(t *testing.T) {
	_, _, spans := runTurn(t, config.Telemetry{Arguments: true, Results: true, MaxFieldBytes: 64})
	found := map[string]string{}
	for _, sp := range spans {
		if sp.Name == "wasmagent.tool" {
			found[str(sp, attrToolCallID)] = str(sp, attrArgs) + " → " + str(sp, attrResult)
		}
		if sp.Name == "wasmagent.hook" && str(sp, attrDecision) == "block" && !strings.Contains(str(sp, attrReason), "not that number") {
			t.Errorf("the blocking hook's reason is missing: %v", sp.Attributes)
		}
	}
	if got := found["c1"]; !strings.Contains(got, `"6*7"`) || !strings.Contains(got, "42") {
		t.Errorf("c1 carries %q, want its arguments and result", got)
	}
	if got := found["c3"]; !strings.Contains(got, "666") || !strings.Contains(got, "not that number") {
		t.Errorf("c3 carries %q, want its arguments and block reason", got)
	}
}

func names(spans []tracetest.SpanStub) []string {
	var out []string
	for _, s := range spans {
		out = append(out, s.Name+"("+str(s, attrToolCallID)+")")
	}
	return out
}
