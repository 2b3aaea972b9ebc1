// Command command is a plugin built the wrong way in tests: as a WASI
// command (no -buildmode=c-shared), so its main runs and exits at
// instantiation.
package main

import "github.com/wasmagent/wasmagent/sdk"

func init() {
	sdk.SetInfo(sdk.Info{Name: "command"})
	sdk.RegisterTool(sdk.NewTool("noop", "Does nothing.", func(*sdk.Call, struct{}) (*sdk.Result, error) {
		return sdk.Text(""), nil
	}))
}

func main() {}
