// Command fs is a wasmagent plugin with the file tools a coding agent
// needs — read, write, edit, ls, find, grep — confined to the directories
// granted to it (see README.md).
package main

import (
	"encoding/json"

	"github.com/wasmagent/wasmagent/sdk"
)

func init() {
	sdk.SetInfo(sdk.Info{Name: "fs", Version: "1.0.0", Needs: &sdk.Needs{
		Paths: []sdk.PathNeed{
			{Guest: sdk.AnyGrant, Why: "the directories its tools work in: /work, or those config roots names"},
		},
		Config: []sdk.ConfigNeed{{Key: "roots", Optional: true, Why: "the granted guest directories the tools may use (default /work)"}},
	}})
	register(sdk.NewTool("read", "Read a text file with line numbers, or an image. Use offset and limit for long files.", read), sdk.Parallel, "Read file")
	register(sdk.NewTool("write", "Create or overwrite a file with the given content; parent directories are created.", write), sdk.Sequential, "Write file")
	register(sdk.NewTool("edit", "Replace exactly one occurrence of oldText with newText in a file. Fails if oldText is missing or appears more than once.", edit), sdk.Sequential, "Edit file")
	register(sdk.NewTool("ls", "List a directory (directories end with /).", ls), sdk.Parallel, "List directory")
	register(sdk.NewTool("find", "Find files whose path matches a glob (** spans directories).", find), sdk.Parallel, "Find files")
	register(sdk.NewTool("grep", "Search file contents with a regular expression.", grep), sdk.Parallel, "Search files")
}

func register(t sdk.Tool, mode, label string) {
	run := t.Run
	t.Run = func(c *sdk.Call, args json.RawMessage) (*sdk.Result, error) {
		r, err := run(c, args)
		return r, explain(c, err)
	}
	t.ExecutionMode = mode
	t.Label = label
	sdk.RegisterTool(t)
}

func main() {}
