package config_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmagent/wasmagent/internal/wasmbuild"
)

// ifModule is the smallest costly code: one function, one if (its two
// branch edges cost 400).
var ifModule = wasmbuild.Module{Funcs: []wasmbuild.Func{{Body: []byte{0x41, 0x00, 0x04, 0x40, 0x0b}}}}.Encode() // i32.const 0; if; end

// runtime.max_compile_cost reaches the runtime: a cap below a plugin's
// cost refuses it at load, naming the plugin, the Runtime's cap and the
// value of the key that admits it; under that value the plugin's code
// passes the check (and the load goes on to what else it lacks: this one
// exports no describe). (Bad values: testdata/broken/max_compile_cost_*.)
func TestMaxCompileCostKey(t *testing.T) {
	plugin := filepath.Join(t.TempDir(), "costly.wasm")
	if err := os.WriteFile(plugin, ifModule, 0o644); err != nil {
		t.Fatal(err)
	}
	load := func(maxCost string) error {
		_, err := wire(t, write(t, "max_compile_cost = "+maxCost+"\n[[tool]]\nplugin = \""+plugin+"\"\n"))
		if err == nil {
			t.Fatalf("max_compile_cost = %s: a module with no describe loaded", maxCost)
		}
		return err
	}
	err := load("1")
	// The refusal is at the line of the plugin key (errors.Is of the runtime's: loaderr_test.go).
	for _, want := range []string{"agent.toml:8: tool[0].plugin", "costly.wasm", "over the host's limit of 1 (runtime.Options.MaxCompileCost"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("max_compile_cost = 1: the refusal %q does not say %q", err, want)
		}
	}
	_, enough, ok := strings.Cut(err.Error(), "[runtime] max_compile_cost = ")
	if !ok || enough == "" || strings.ContainsFunc(enough, func(r rune) bool { return r < '0' || r > '9' }) {
		t.Fatalf("the refusal %q names no value for max_compile_cost at its end", err)
	}
	if err := load(enough); strings.Contains(err.Error(), "would cost the compiler") {
		t.Fatalf("max_compile_cost = %s, the value the refusal named: %v", enough, err)
	}
}
