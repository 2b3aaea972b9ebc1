package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmagent/wasmagent/internal/wasmbuild"
)

// costlyModule is the smallest code with a compile cost (one function,
// one if: 400): no describe, so past the cost check its load fails for
// that.
var costlyModule = wasmbuild.Module{Funcs: []wasmbuild.Func{{Body: []byte{0x41, 0x00, 0x04, 0x40, 0x0b}}}}.Encode() // i32.const 0; if; end

// plugin call and plugin inspect take --max-compile-cost, the command
// line's [runtime] max_compile_cost: a cap below a plugin's cost refuses
// it with a hint naming the flag and the value that admits it, and with
// that value the plugin passes the check (and fails for what it lacks).
func TestMaxCompileCostFlag(t *testing.T) {
	path := filepath.Join(t.TempDir(), "costly.wasm")
	if err := os.WriteFile(path, costlyModule, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, cmd := range [][]string{{"plugin", "call"}, {"plugin", "inspect"}} {
		args := func(cost string) []string {
			a := append(append([]string{}, cmd...), "--max-compile-cost", cost, path)
			if cmd[1] == "call" {
				a = append(a, "tool")
			}
			return a
		}
		_, errOut, code := runMain(args("1")...)
		_, enough, ok := strings.Cut(errOut, "load it with --max-compile-cost ")
		enough = strings.TrimSpace(enough)
		if code != 2 || !ok || enough == "" || strings.ContainsFunc(enough, func(r rune) bool { return r < '0' || r > '9' }) {
			t.Fatalf("%s --max-compile-cost 1: exit %d, want 2 and a hint naming the value that admits it:\n%s", cmd, code, errOut)
		}
		if out, errOut, _ := runMain(args(enough)...); strings.Contains(errOut, "would cost the compiler") || !strings.Contains(out+errOut, "describe") {
			t.Errorf("%s --max-compile-cost %s, the value the hint named: %s", cmd, enough, errOut)
		}
		if _, errOut, code := runMain(args("-5")...); code != 2 || !strings.Contains(errOut, "--max-compile-cost -5: want a positive cap") {
			t.Errorf("%s --max-compile-cost -5: exit %d: %s", cmd, code, errOut)
		}
	}
}
