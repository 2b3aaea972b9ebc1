package wasmtool_test

import (
	"context"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmagent/wasmagent/host/wasmtool"
	"github.com/wasmagent/wasmagent/runtime"
)

// brIfRun is a module whose one function, (i32) -> i32, is n br_ifs out
// of one block: 4n bytes that wazero's compiler takes time quadratic in
// n to compile (40,000: about 40 s of one core).
func brIfRun(n int) []byte {
	code := []byte{0x00, 0x02, 0x40} // no locals; block
	for range n {
		code = append(code, 0x20, 0x00, 0x0d, 0x00) // local.get 0; br_if 0
	}
	code = append(code, 0x0b, 0x20, 0x00, 0x0b) // end; local.get 0; end
	section := func(id byte, body []byte) []byte {
		return append(binary.AppendUvarint([]byte{id}, uint64(len(body))), body...)
	}
	body := append(binary.AppendUvarint([]byte{1}, uint64(len(code))), code...)
	m := []byte("\x00asm\x01\x00\x00\x00")
	m = append(m, section(1, []byte{1, 0x60, 1, 0x7f, 1, 0x7f})...)
	m = append(m, section(3, []byte{1, 0})...)
	return append(m, section(10, body)...)
}

// TestCostlyCodeIsRefusedAtLoad: a plugin whose code would hold a core
// for long in wazero's compiler is refused by Load before it is
// compiled, with a LoadError naming the file, the function and the cap;
// the same shape a fortieth the size loads on to the next check.
func TestCostlyCodeIsRefusedAtLoad(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "costly.wasm")
	if err := os.WriteFile(path, brIfRun(40000), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := wasmtool.Load(context.Background(), rt(t), path, wasmtool.Options{})
	var le *wasmtool.LoadError
	if !errors.As(err, &le) || le.Path != path || !errors.Is(err, runtime.ErrCompileCost) {
		t.Fatalf("Load = %v, want a LoadError for %s matching runtime.ErrCompileCost", err, path)
	}
	for _, want := range []string{"function 0", "runtime.MaxFunctionCompileCost", "40000 branch edges"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the error %q does not say %q", err, want)
		}
	}
	small := filepath.Join(dir, "small.wasm")
	if err := os.WriteFile(small, brIfRun(1000), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = wasmtool.Load(context.Background(), rt(t), small, wasmtool.Options{})
	if err == nil || errors.Is(err, runtime.ErrCompileCost) || !strings.Contains(err.Error(), "describe") {
		t.Fatalf("Load of the small one = %v, want it compiled and then refused for not exporting describe", err)
	}
}
