package plugintest

import (
	"context"
	"testing"

	"github.com/wasmagent/wasmagent/host/wasmtool"
	"github.com/wasmagent/wasmagent/internal/wasmbuild"
	"github.com/wasmagent/wasmagent/runtime"
)

// LoadAS builds the AssemblyScript plugin in dir (relative to the module
// root; npm ci from its lockfile, then asc) and loads it with grants; it
// is closed when the test ends. Without node and npm the test is skipped
// with a message saying so; with -short too.
func LoadAS(t *testing.T, dir string, grants runtime.Grants) *wasmtool.Plugin {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and runs the plugin in the host")
	}
	p, err := wasmtool.Load(context.Background(), Runtime(t), wasmbuild.ASForTest(t, dir), wasmtool.Options{Grants: grants})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	return p
}
