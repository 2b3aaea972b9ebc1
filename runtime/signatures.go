package runtime

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/tetratelabs/wazero/api"
	"github.com/wasmagent/wasmagent/sdk"
)

// signature is the Wasm type of an export the host calls.
type signature struct{ params, results []api.ValueType }

func (s signature) String() string {
	names := func(ts []api.ValueType) string {
		out := make([]string, len(ts))
		for i, t := range ts {
			out[i] = api.ValueTypeName(t)
		}
		return "(" + strings.Join(out, ", ") + ")"
	}
	return names(s.params) + " -> " + names(s.results)
}

// callSignature is the type of every export called through Plugin.Call,
// as Extism defines it: no parameters, an i32 result (0 for success).
var callSignature = signature{nil, sig(i32)}

// hostExports are the exports the host calls when the module has them:
// the initialisers instantiate runs, and the exports of the wasmagent ABI
// (docs/abi.md), which Plugin.Call runs. Checked at load, so that a module
// whose execute returns two values, say, is refused with a message
// instead of being called as if it returned a code.
var hostExports = map[string]signature{
	"_initialize":              {},
	"__wasm_call_ctors":        {},
	"_start":                   {},
	"hs_init":                  {sig(i32, i32), nil},
	sdk.ExportDescribe:         callSignature,
	sdk.ExportExecute:          callSignature,
	sdk.ExportPrepareArguments: callSignature,
	sdk.ExportBeforeToolCall:   callSignature,
	sdk.ExportAfterToolCall:    callSignature,
	ExportBulkInput:            bulkExports[ExportBulkInput],
	ExportBulkOutput:           bulkExports[ExportBulkOutput],
	ExportBulkParts:            bulkExports[ExportBulkParts],
}

// checkSignature says whether def has the signature want.
func checkSignature(name string, def api.FunctionDefinition, want signature) error {
	got := signature{def.ParamTypes(), def.ResultTypes()}
	if got.String() != want.String() {
		return fmt.Errorf("its export %q has the signature %v; the host calls it as %v", name, got, want)
	}
	return nil
}

// checkExports checks the signature of every export the host may call.
func checkExports(exports map[string]api.FunctionDefinition) error {
	var errs []string
	for _, name := range slices.Sorted(maps.Keys(exports)) {
		if want, ok := hostExports[name]; ok {
			if err := checkSignature(name, exports[name], want); err != nil {
				errs = append(errs, err.Error())
			}
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("%s", strings.Join(errs, "; "))
	}
	return nil
}
