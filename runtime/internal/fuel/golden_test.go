package fuel

import (
	"bytes"
	"crypto/sha256"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmagent/wasmagent/runtime/internal/wasmgen"
)

var update = flag.Bool("update", false, "rewrite testdata/golden.txt from this rewrite's output")

// The rewrite's output, byte for byte, and its errors, word for word, on
// generated modules, mutations of them (most of which it refuses), the
// fixed modules, and wazero's spec test modules, under three option sets,
// are those recorded in testdata/golden.txt. A change to how the walker
// works (it copies unchanged code in spans, reuses its buffers) must not
// change what it writes; a change to what it writes is made on purpose,
// with -update, and shows in the diff of that file.
//
// The record was checked, when made, against the rewrite before spans on
// every test plugin built on this machine too (82 Go and AssemblyScript
// plugins: the same bytes); Go plugins are not in it, as their bytes
// change with the toolchain.
func TestOutputIsTheRecordedOne(t *testing.T) {
	var got bytes.Buffer
	digest := func(name string, wasm ...[]byte) {
		h := sha256.New()
		for _, m := range wasm {
			for _, o := range []Options{{}, {NoCallDepth: true}, {MaxCallDepth: 77, MaxTableElements: 5}} {
				out, rep, err := InstrumentReport(m, o)
				// The report as it was recorded, before it held the
				// compile costs (cost_test.go checks those).
				fmt.Fprintf(h, "%d %x {%v} %v\n", len(out), out, rep.WritesTables, err)
			}
		}
		fmt.Fprintf(&got, "%s %x\n", name, h.Sum(nil)[:12])
	}
	for i, m := range [][]byte{wasmgen.Index(), wasmgen.Tree(), wasmgen.GuardedTree(), wasmgen.Spin(), wasmgen.Recursion(), wasmgen.Fill(), wasmgen.Grow(), wasmgen.HostLoop(3), countdown(), fibModule()} {
		digest(fmt.Sprintf("fixed %d", i), m)
	}
	for seed := range uint64(goldenSeeds) {
		g := wasmgen.Gen(seed, seed%2 == 0, seed%3 == 0)
		rng := rand.New(rand.NewPCG(seed, 7))
		muts := [][]byte{}
		for range 8 {
			muts = append(muts, mutate(rng, g.Wasm))
		}
		digest(fmt.Sprintf("generated %d", seed), g.Wasm)
		digest(fmt.Sprintf("mutated %d", seed), muts...)
	}
	if spec := specModules(t); len(spec) > 0 && !raceOn {
		for _, suite := range []string{"v1", "v2"} {
			var mods [][]byte
			for _, f := range spec[suite] {
				b, err := os.ReadFile(f)
				if err != nil {
					t.Fatal(err)
				}
				mods = append(mods, b)
			}
			digest(fmt.Sprintf("spec %s %d modules", suite, len(mods)), mods...)
		}
	}
	path := filepath.Join("testdata", "golden.txt")
	if *update {
		if raceOn || goldenSeeds < 300 {
			t.Fatal("update without -race and -short: the record holds every case")
		}
		if err := os.WriteFile(path, got.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	wantLines := map[string]string{}
	for line := range strings.SplitSeq(strings.TrimSpace(string(want)), "\n") {
		i := strings.LastIndexByte(line, ' ')
		wantLines[line[:i]] = line[i+1:]
	}
	for line := range strings.SplitSeq(strings.TrimSpace(got.String()), "\n") {
		i := strings.LastIndexByte(line, ' ')
		if w, ok := wantLines[line[:i]]; !ok || w != line[i+1:] {
			t.Errorf("%s: output %s, recorded %q", line[:i], line[i+1:], w)
		}
	}
}

// specModules lists wazero's spec test modules by suite (none if its
// source cannot be found).
func specModules(t *testing.T) map[string][]string {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/tetratelabs/wazero").Output()
	if err != nil {
		t.Logf("no spec modules: cannot find wazero's source: %v", err)
		return nil
	}
	root := filepath.Join(strings.TrimSpace(string(out)), "internal", "integration_test", "spectest")
	m := map[string][]string{}
	for _, suite := range []string{"v1", "v2"} {
		m[suite], _ = filepath.Glob(filepath.Join(root, suite, "testdata", "*.wasm"))
	}
	return m
}
