package config_test

import (
	"strings"
	"testing"
)

// runtime.max_compile_cost reaches the runtime: a cap below calc's cost
// refuses it at load, naming the plugin and the key that raises the cap;
// a cap above it loads it. (Bad values: testdata/broken/max_compile_cost_*.)
func TestMaxCompileCostKey(t *testing.T) {
	_, err := wire(t, write(t, "max_compile_cost = 1\n[[tool]]\nplugin = \"CALC\"\n"))
	if err == nil {
		t.Fatal("max_compile_cost = 1: calc loaded")
	}
	// The configuration's errors carry the runtime's as text, at the line of the plugin key.
	for _, want := range []string{"agent.toml:8: tool[0].plugin", "calc", "over the host's limit of 1 (runtime.Options.MaxCompileCost", "[runtime] max_compile_cost = "} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the refusal %q does not say %q", err, want)
		}
	}
	s, err := wire(t, write(t, "max_compile_cost = 1_000_000_000_000\n[[tool]]\nplugin = \"CALC\"\n"))
	if err != nil {
		t.Fatalf("max_compile_cost = 1e12: %v", err)
	}
	if len(s.Tools) == 0 {
		t.Fatal("max_compile_cost = 1e12: calc loaded no tools")
	}
}
