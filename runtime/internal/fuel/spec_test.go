package fuel

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
)

// Every module of wazero's copy of the WebAssembly spec test suites (v1
// and v2, the valid and the invalid ones) keeps its validity through the
// rewrite: a valid module is rewritten into a valid one (or refused with
// an error, counted and logged), and no invalid one becomes valid.
func TestSpecModulesKeepTheirValidity(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles some 10000 modules")
	}
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/tetratelabs/wazero").Output()
	if err != nil {
		t.Skipf("cannot find wazero's source: %v", err)
	}
	root := filepath.Join(strings.TrimSpace(string(out)), "internal", "integration_test", "spectest")
	ctx := context.Background()
	r := wazero.NewRuntimeWithConfig(ctx, oracleConfig(wazero.NewRuntimeConfigInterpreter()).WithCoreFeatures(api.CoreFeaturesV2))
	defer r.Close(ctx)
	var valid, invalid, refused int
	for _, suite := range []string{"v1", "v2"} {
		files, _ := filepath.Glob(filepath.Join(root, suite, "testdata", "*.wasm"))
		if len(files) == 0 {
			t.Skipf("no spec modules under %s", root)
		}
		for _, f := range files {
			wasm, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			co, oerr := r.CompileModule(ctx, wasm)
			if oerr == nil {
				co.Close(ctx)
			}
			inst, ierr := Instrument(wasm, Options{})
			switch {
			case ierr != nil && oerr == nil:
				refused++
				t.Logf("%s/%s: valid, refused by the rewrite: %v", suite, filepath.Base(f), ierr)
				continue
			case ierr != nil:
				invalid++
				continue
			}
			ci, cerr := r.CompileModule(ctx, inst)
			if cerr == nil {
				ci.Close(ctx)
			}
			switch {
			case oerr == nil && cerr != nil:
				t.Errorf("%s/%s: valid, invalid once rewritten: %v", suite, filepath.Base(f), cerr)
			case oerr != nil && cerr == nil:
				t.Errorf("%s/%s: invalid (%v), valid once rewritten", suite, filepath.Base(f), oerr)
			case oerr == nil:
				valid++
			default:
				invalid++
			}
		}
	}
	t.Logf("%d valid modules rewritten into valid ones, %d invalid stayed invalid, %d valid refused by the rewrite", valid, invalid, refused)
}
