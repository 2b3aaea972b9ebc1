package host_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/wasmagent/wasmagent/host/hosttest"
)

// TestMatchesPiGenerated runs generated scenarios (pidiff_scenario_test.go)
// on pi-agent-core 0.73.1 (testdata/pi/diff.mjs, one node process) and on
// our loop, and compares the event streams after normalizePiLine. On a
// difference it shrinks the scenario and reports the seed, the smallest
// scenario that still differs and the first differing event of each side.
//
// WASMAGENT_PIDIFF_N sets the number of scenarios (default 200; 30 under
// the race detector, race_on_test.go),
// WASMAGENT_PIDIFF_SEED the first seed (default 1; scenario i has seed
// SEED+i), so a failure is replayed with WASMAGENT_PIDIFF_SEED=s
// WASMAGENT_PIDIFF_N=1.
func TestMatchesPiGenerated(t *testing.T) {
	node := piNode(t)
	n, seed := hosttest.EnvInt(t, "WASMAGENT_PIDIFF_N", piGeneratedScenarios), hosttest.EnvInt(t, "WASMAGENT_PIDIFF_SEED", 1)
	if testing.Short() {
		n = min(n, 40)
	}
	scenarios := fixedPiScenarios(t)
	for i := range n {
		scenarios = append(scenarios, generatePiScenario(uint64(seed+i)))
	}
	theirs := runPiScenariosOnPi(t, node, scenarios)
	failures := 0
	for i, sc := range scenarios {
		d := diffPiScenario(t, sc, theirs[i])
		if d == "" {
			continue
		}
		if sc.Name != "" {
			t.Errorf("fixed scenario %q: our events differ from pi's\n%s", sc.Name, d)
			failures++
			continue
		}
		small, sd := shrinkPiScenario(t, node, sc, d)
		t.Errorf("seed %d: our events differ from pi's\nscenario (shrunk): %s\n%s\nreplay: WASMAGENT_PIDIFF_SEED=%d WASMAGENT_PIDIFF_N=1 go test ./host -run Generated",
			sc.Seed, small.JSON(), sd, sc.Seed)
		if failures++; failures == 3 {
			t.Fatalf("stopping after %d differing scenarios", failures)
		}
	}
	t.Logf("%d of %d scenarios (fixed ones, then seeds %d…%d) match pi", len(scenarios)-failures, len(scenarios), seed, seed+n-1)
}

// fixedPiScenarios reads testdata/pi/diff/fixed.jsonl: scenarios kept
// whatever the seeds, each for a point the generator reaches only rarely
// (and the place for the smallest scenario of any divergence found).
func fixedPiScenarios(t *testing.T) []*piScenario {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "pi", "diff", "fixed.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var out []*piScenario
	for i, line := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
		var sc piScenario
		dec := json.NewDecoder(bytes.NewReader(line))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&sc); err != nil || sc.Name == "" {
			t.Fatalf("testdata/pi/diff/fixed.jsonl:%d: %v (each line is a scenario with a name)", i+1, err)
		}
		out = append(out, &sc)
	}
	return out
}

// piNode returns the node executable, or skips when node or the npm
// packages of testdata/pi are missing.
func piNode(t *testing.T) string {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed: cannot run pi-agent-core (install Node 20 to compare our loop with pi)")
	}
	if _, err := os.Stat(filepath.Join("testdata", "pi", "node_modules", "@mariozechner", "pi-agent-core")); err != nil {
		t.Skip("testdata/pi/node_modules is missing: run `npm ci` in host/testdata/pi (make test does)")
	}
	return node
}

// runPiScenariosOnPi runs the scenarios through diff.mjs in one node
// process and returns each one's normalised events.
func runPiScenariosOnPi(t *testing.T, node string, scenarios []*piScenario) [][]string {
	t.Helper()
	var in bytes.Buffer
	for _, sc := range scenarios {
		in.WriteString(sc.JSON())
		in.WriteByte('\n')
	}
	cmd := exec.Command(node, "diff.mjs")
	cmd.Dir = filepath.Join("testdata", "pi")
	cmd.Stdin = &in
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node diff.mjs: %v\n%s", err, stderr.Bytes())
	}
	var all [][]string
	var cur []string
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		if sc.Text() == "---" {
			all, cur = append(all, cur), nil
			continue
		}
		line, err := normalizePiLine(sc.Bytes())
		if err != nil {
			t.Fatalf("diff.mjs wrote %q: %v", sc.Text(), err)
		}
		cur = append(cur, line)
	}
	if len(all) != len(scenarios) {
		t.Fatalf("diff.mjs answered %d of %d scenarios\n%s", len(all), len(scenarios), stderr.Bytes())
	}
	return all
}

// diffPiScenario runs sc on our loop and returns "" when its events are
// pi's, else the first difference.
func diffPiScenario(t *testing.T, sc *piScenario, theirs []string) string {
	t.Helper()
	done := make(chan struct{})
	var raw [][]byte
	var err error
	go func() {
		defer close(done)
		raw, err = runPiScenario(sc)
	}()
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		return "our loop did not finish in 60 s"
	}
	if err != nil {
		t.Fatalf("seed %d: %v", sc.Seed, err)
	}
	ours := make([]string, len(raw))
	for i, b := range raw {
		if ours[i], err = normalizePiLine(b); err != nil {
			t.Fatalf("seed %d: our event %s: %v", sc.Seed, b, err)
		}
	}
	i, g, w, differ := hosttest.FirstDiff(ours, theirs)
	if !differ {
		return ""
	}
	return fmt.Sprintf("event %d differs (%d events ours, %d pi's)\n ours: %s\n   pi: %s", i+1, len(ours), len(theirs), g, w)
}
