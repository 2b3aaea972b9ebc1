package cli

import (
	"cmp"
	"context"
	"fmt"
	goruntime "runtime"
	"runtime/debug"

	"github.com/wasmagent/wasmagent/sdk"
)

func versionCmd(_ context.Context, args []string, env Env) int {
	f := newFlags("version", "version", "", env)
	if code, ok := f.parse(args); !ok {
		return code
	}
	if f.NArg() > 0 {
		return f.fail("takes no arguments")
	}
	fmt.Fprintln(env.Stdout, versionLine())
	return ExitOK
}

// versionLine is "wasmagent VERSION (plugin ABI N, goX)": the module
// version the binary was built from ("(devel)" from a work tree without
// version control), its commit when known, and the ABI plugins must
// declare.
func versionLine() string {
	return fmt.Sprintf("wasmagent %s (plugin ABI %d, %s)", moduleVersion(), sdk.ABIVersion, goruntime.Version())
}

// moduleVersion is the version of wasmagent this binary was built from,
// with its commit when known: what --version and the MCP server's
// serverInfo say.
func moduleVersion() string {
	version, commit := "", ""
	if bi, ok := debug.ReadBuildInfo(); ok {
		version = bi.Main.Version
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" && len(s.Value) >= 12 {
				commit = s.Value[:12]
			}
			if s.Key == "vcs.modified" && s.Value == "true" && commit != "" {
				commit += "+dirty"
			}
		}
	}
	version = cmp.Or(version, "(devel)")
	if commit != "" && version == "(devel)" {
		version += " " + commit
	}
	return version
}
