// Package sdk is what a wasmagent plugin is written with, and the wire
// types of the plugin contract (ABI 1, docs/abi.md) that the host shares.
//
// A plugin is a Go main package whose init functions register its tools
// and hooks; its main is empty:
//
//	type greetArgs struct {
//		Name string `json:"name" description:"who to greet"`
//	}
//
//	func init() {
//		sdk.SetInfo(sdk.Info{Name: "greet", Version: "1.0.0"})
//		sdk.RegisterTool(sdk.NewTool("greet", "Greets someone.",
//			func(c *sdk.Call, a greetArgs) (*sdk.Result, error) {
//				return sdk.Text("Hello, " + a.Name), nil
//			}))
//	}
//
//	func main() {}
//
// Built with the standard Go toolchain:
//
//	GOOS=wasip1 GOARCH=wasm go build -trimpath -buildmode=c-shared -o greet.wasm .
//
// The package owns the exports (describe, execute, prepare_arguments,
// before_tool_call, after_tool_call, and the bulk path's
// wasmagent_bulk_input_v1, wasmagent_bulk_output_v1 and
// wasmagent_bulk_output_v2, through which a wasmagent host moves input and
// output with one copy each, execute's long texts and data raw:
// docs/abi.md);
// they live in its *_wasip1.go files, on github.com/extism/go-pdk. On any
// other Extism host the plugin reads and writes through Extism as usual. Everything else builds for the host too, so a
// plugin's tests run natively with package sdk/sdktest, and its Wasm
// build runs in the real host, with grants, with package sdk/wasmtest.
package sdk
