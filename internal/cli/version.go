package cli

import (
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
	version, commit := "(unknown)", ""
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
	if commit != "" && version == "(devel)" {
		version += " " + commit
	}
	return fmt.Sprintf("wasmagent %s (plugin ABI %d, %s)", version, sdk.ABIVersion, goruntime.Version())
}
