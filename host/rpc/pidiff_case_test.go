package rpc_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// rpcCase is a difference TestRPCMatchesPi found, kept as a regression
// test: the shrunk sequence and pi's lines for it, recorded.
type rpcCase struct {
	// Why says what differed and what was done about it.
	Why string   `json:"why"`
	Seq *diffSeq `json:"seq"`
	Pi  piRecord `json:"pi"`
}

// piRecord is what normRPC needs of pi's side of a run.
type piRecord struct {
	Lines   []recordedLine `json:"lines"`
	Loose   []string       `json:"loose,omitempty"`
	BadArgs []string       `json:"badArgs,omitempty"`
}

type recordedLine struct {
	Op   int             `json:"op"`
	Line json.RawMessage `json:"line"`
}

// TestRPCPiCases replays each case of testdata/pidiff on wasmagent alone
// and compares its lines with pi's, recorded, after the normalisation of
// TestRPCMatchesPi: the divergences the differential found stay fixed
// without starting pi in every run (WASMAGENT_RPCDIFF_RECORD=1 runs pi
// again and rewrites the recordings; it needs node).
func TestRPCPiCases(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds the binary")
	}
	binary := build(t)
	record := os.Getenv("WASMAGENT_RPCDIFF_RECORD") == "1"
	var node string
	if record {
		node = nodeDir(t)
	}
	files, _ := filepath.Glob(filepath.Join("testdata", "pidiff", "*.json"))
	if len(files) == 0 {
		t.Fatal("no cases in testdata/pidiff")
	}
	for _, f := range files {
		t.Run(strings.TrimSuffix(filepath.Base(f), ".json"), func(t *testing.T) {
			t.Parallel()
			var c rpcCase
			data, err := os.ReadFile(f)
			if err == nil {
				err = json.Unmarshal(data, &c)
			}
			if err != nil || c.Seq == nil {
				t.Fatalf("%s: %v (want {\"why\",\"seq\",\"pi\"})", f, err)
			}
			for _, n := range c.Seq.givenPlaceholders() {
				if _, kept := c.Seq.Given[n]; kept {
					continue
				}
				if !record {
					t.Fatalf("%s names $GIVEN:%s but holds no copy of that session file, so pi's recorded answers may be for another file than hosttest.Given writes now: record pi's answers for the file written now with\n\tWASMAGENT_RPCDIFF_RECORD=1 go test ./host/rpc -run 'TestRPCPiCases/%s$'\n(it needs node; the file is then kept in the case)",
						f, n, strings.TrimSuffix(filepath.Base(f), ".json"))
				}
				if c.Seq.Given == nil {
					c.Seq.Given = map[string]string{}
				}
				k, _ := strconv.Atoi(n)
				c.Seq.Given[n] = givenFile(k)
			}
			if record {
				pi, err := runRPCSide(t, c.Seq, func(s *diffServer) (*rpcProc, error) { return startPi(t, node, s) })
				if err != nil {
					t.Fatalf("pi: %v", err)
				}
				c.Pi = pi.record()
				out, _ := json.MarshalIndent(c, "", "\t")
				if err := os.WriteFile(f, append(out, '\n'), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			ours, err := runRPCSide(t, c.Seq, func(s *diffServer) (*rpcProc, error) { return startOurs(t, binary, s) })
			pi := c.Pi.proc()
			for i := range ours.got {
				// the recordings keep values, their keys sorted:
				// key order is TestRPCMatchesPi's to compare
				ours.got[i].order = nil
			}
			oR, oE := normRPC(ours, false)
			pR, pE := normRPC(pi, false)
			if d := compareRPC(oR, oE, pR, pE); d != "" || err != nil {
				t.Fatalf("%s\nwasmagent answers otherwise than pi did (%v):\n%s", c.Why, err, d)
			}
		})
	}
}

// runRPCSide runs seq on one side, started by start against its own
// diffServer, and stops it.
func runRPCSide(t *testing.T, seq *diffSeq, start func(*diffServer) (*rpcProc, error)) (*rpcProc, error) {
	t.Helper()
	p, err := start(newDiffServer(t, seq.turns()))
	if err != nil {
		t.Fatalf("starting: %v", err)
	}
	err = seq.run(p)
	p.stop()
	return p, err
}

func (p *rpcProc) record() piRecord {
	var r piRecord
	for _, g := range p.got {
		r.Lines = append(r.Lines, recordedLine{g.op, slimUpdate(g.line)})
	}
	for id := range p.loose {
		r.Loose = append(r.Loose, id)
	}
	for id := range p.srv.BadArgs() {
		r.BadArgs = append(r.BadArgs, id)
	}
	slices.Sort(r.Loose)
	slices.Sort(r.BadArgs)
	return r
}

// proc is a recorded side, as normRPC reads it.
func (r piRecord) proc() *rpcProc {
	p := &rpcProc{loose: map[string]bool{}, srv: &diffServer{badArgs: map[string]bool{}}}
	for _, l := range r.Lines {
		var v map[string]any
		json.Unmarshal(l.Line, &v)
		p.got = append(p.got, gotLine{op: l.Op, line: l.Line, v: v})
	}
	for _, id := range r.Loose {
		p.loose[id] = true
	}
	for _, id := range r.BadArgs {
		p.srv.badArgs[id] = true
	}
	return p
}

// slimUpdate keeps of a message_update line what rpcNorm compares: its
// message and partial are left out but for the tool calls' ids and
// arguments (whether they are objects is compared).
func slimUpdate(line []byte) json.RawMessage {
	var v map[string]any
	if json.Unmarshal(line, &v) != nil || v["type"] != "message_update" {
		return json.RawMessage(line)
	}
	if ev, ok := v["assistantMessageEvent"].(map[string]any); ok {
		delete(ev, "partial")
	}
	msg, _ := v["message"].(map[string]any)
	blocks, _ := msg["content"].([]any)
	var calls []any
	for _, b := range blocks {
		if b, _ := b.(map[string]any); b["type"] == "toolCall" {
			calls = append(calls, map[string]any{"type": "toolCall", "id": b["id"], "arguments": b["arguments"]})
		}
	}
	v["message"] = map[string]any{"content": calls}
	out, err := json.Marshal(v)
	if err != nil {
		return json.RawMessage(line)
	}
	return out
}
