package runtime

import (
	"context"
	"fmt"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"

	"github.com/wasmagent/wasmagent/runtime/internal/fuel"
)

// Each module is rewritten once, before it is compiled, by
// runtime/internal/fuel: its code counts fuel and calls wasmagent.tick
// (hostfuncs.go) when the fuel runs out, and its call depth is bounded.
// The rule that places the checks, and why it suffices, is in that
// package's doc.

const (
	fuelBudget = fuel.Budget
	tickModule = fuel.TickModule
	tickName   = fuel.TickName
)

// errCallDepth ends a call that recursed deeper than the limit the
// instrumentation enforces (fuel.MaxCallDepth frames of functions that
// call).
var errCallDepth = &fault{because(fmt.Sprintf("call depth limit exceeded (%d)", fuel.MaxCallDepth), ErrCallDepth)}

// reservedImport reports an import the instrumentation adds.
func reservedImport(mod, name string) bool {
	return (mod == fuel.TickModule && name == fuel.TickName) || (mod == fuel.DepthModule && name == fuel.DepthName)
}

// depthExceeded is wasmagent:depth.exceeded, which instrumented code calls
// when its call depth passes the limit. It never returns: the call fails
// with errCallDepth as its fault.
func depthExceeded(ctx context.Context, _ api.Module, _ []uint64) {
	if st, _ := ctx.Value(stateKey{}).(*callState); st != nil {
		st.check(errCallDepth)
	}
	panic(errCallDepth) // instantiation: no call state yet
}

// instantiateDepthModule adds wasmagent:depth to rt.
func instantiateDepthModule(ctx context.Context, rt wazero.Runtime) error {
	_, err := rt.NewHostModuleBuilder(fuel.DepthModule).
		NewFunctionBuilder().WithGoModuleFunction(api.GoModuleFunc(depthExceeded), nil, []api.ValueType{api.ValueTypeI64}).Export(fuel.DepthName).
		Instantiate(ctx)
	if err != nil {
		return fmt.Errorf("%s: %w", fuel.DepthModule, err)
	}
	return nil
}
