package cli

import (
	"errors"
	"fmt"

	"github.com/wasmagent/wasmagent/runtime"
)

// addCompileCostFlag adds --max-compile-cost, the command line's
// [runtime] max_compile_cost, to a command that loads a plugin without
// a configuration (plugin call, plugin inspect).
func addCompileCostFlag(f *flags) *int64 {
	return f.Int64("max-compile-cost", 0, "load a plugin you trust whose code costs the compiler more than the default cap (runtime.MaxFunctionCompileCost): the refusal names the `N` that admits it")
}

// compileCost checks --max-compile-cost's value.
func compileCost(n int64) (int64, error) {
	if n < 0 {
		return 0, fmt.Errorf("--max-compile-cost %d: want a positive cap (leave it out for the default, %d)", n, int64(runtime.MaxFunctionCompileCost))
	}
	return n, nil
}

// compileCostHint says how to load anyway a plugin refused for its
// compile cost, or "" for any other error.
func compileCostHint(err error) string {
	var ce *runtime.CompileCostError
	if !errors.As(err, &ce) {
		return ""
	}
	return fmt.Sprintf("hint: if you trust this plugin, load it with --max-compile-cost %d", ce.Enough())
}
