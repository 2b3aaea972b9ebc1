package rpc_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmagent/wasmagent/host"
	"github.com/wasmagent/wasmagent/host/hosttest"
)

// TestRPCMatchesPi drives pi-coding-agent 0.73.1's own RPC mode (`pi
// --mode rpc`, run by node) and `wasmagent rpc` with the same generated
// command sequences (pidiff_gen_test.go), each side against its own copy
// of one scripted OpenAI-compatible server (pidiff_model_test.go), and
// compares every response and every event after rpcNorm. A difference is
// shrunk to the smallest sequence that still differs and printed with
// its seed and the first differing line of each side.
//
// WASMAGENT_RPCDIFF_N sets the number of sequences (default 1: each costs
// a node and a wasmagent process, some 3 s of CPU, most of it pi starting
// up), WASMAGENT_RPCDIFF_SEED
// the first seed (default 1; sequence i has seed SEED+i), and
// WASMAGENT_RPCDIFF_STRICT=1 turns off the normalisation of the model
// adapter's known differences (docs/rpc.md), and WASMAGENT_RPCDIFF_SHRINK=0
// reports a difference without shrinking it (to survey many seeds fast);
// WASMAGENT_RPCDIFF_DUMP=DIR writes each side's lines, as they came, to
// DIR/SEED-pi.jsonl and DIR/SEED-ours.jsonl (each line after the number
// of the op during which it came).
func TestRPCMatchesPi(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds the binary, runs pi-coding-agent in node")
	}
	node := nodeDir(t)
	binary := build(t)
	n, seed := hosttest.EnvInt(t, "WASMAGENT_RPCDIFF_N", 1), hosttest.EnvInt(t, "WASMAGENT_RPCDIFF_SEED", 1)
	strict := os.Getenv("WASMAGENT_RPCDIFF_STRICT") == "1"
	failures := 0
	for i := range n {
		seq := generateRPCSeq(uint64(seed + i))
		d := diffRPCSeq(t, node, binary, seq, strict)
		if d == "" {
			continue
		}
		small, sd := seq, d
		if os.Getenv("WASMAGENT_RPCDIFF_SHRINK") != "0" {
			small, sd = shrinkRPCSeq(t, node, binary, seq, d, strict)
		}
		t.Errorf("seed %d: wasmagent rpc answers differently from pi --mode rpc\nsequence (shrunk): %s\n%s\nreplay: WASMAGENT_RPCDIFF_SEED=%d WASMAGENT_RPCDIFF_N=1 go test ./host/rpc -run TestRPCMatchesPi",
			seq.Seed, small.JSON(), sd, seq.Seed)
		if failures++; failures == hosttest.EnvInt(t, "WASMAGENT_RPCDIFF_MAXFAIL", 3) {
			t.Fatalf("stopping after %d differing sequences", failures)
		}
	}
	t.Logf("%d of %d sequences (seeds %d…%d) match pi", n-failures, n, seed, seed+n-1)
}

// diffRPCSeq runs seq on both sides at once and returns "" when they
// answer alike, else the first difference.
func diffRPCSeq(t *testing.T, node, binary string, seq *diffSeq, strict bool) string {
	t.Helper()
	type result struct {
		p   *rpcProc
		err error
	}
	piDone, oursDone := make(chan result, 1), make(chan result, 1)
	piSrv, oursSrv := newDiffServer(t, seq.turns()), newDiffServer(t, seq.turns())
	go func() {
		p, err := startPi(t, node, piSrv)
		if err == nil {
			err = seq.run(p)
		}
		piDone <- result{p, err}
	}()
	go func() {
		p, err := startOurs(t, binary, oursSrv)
		if err == nil {
			err = seq.run(p)
		}
		oursDone <- result{p, err}
	}()
	pi, ours := <-piDone, <-oursDone
	if pi.p == nil || ours.p == nil {
		t.Fatalf("starting the sides: pi: %v; wasmagent: %v", pi.err, ours.err)
	}
	pi.p.stop()
	ours.p.stop()
	if dir := os.Getenv("WASMAGENT_RPCDIFF_DUMP"); dir != "" {
		dumpRPC(t, dir, seq.Seed, "pi", pi.p.got)
		dumpRPC(t, dir, seq.Seed, "ours", ours.p.got)
	}
	if pi.err != nil {
		return fmt.Sprintf("pi did not get through the sequence: %v", pi.err)
	}
	for _, side := range []*rpcProc{pi.p, ours.p} {
		for _, g := range side.got {
			// pi's lines are JSON.stringify's (a line of pi's that is
			// not would be JSONStringify's error); so must ours be
			if js, err := host.JSONStringify(g.line); err != nil || !bytes.Equal(js, g.line) {
				return fmt.Sprintf("a line not as JSON.stringify writes it (pi's side: %v):\n %s\nJSON.stringify: %s", side == pi.p, g.line, js)
			}
		}
	}
	oR, oE := normRPC(ours.p, strict)
	pR, pE := normRPC(pi.p, strict)
	d := compareRPC(oR, oE, pR, pE)
	if ours.err != nil {
		return fmt.Sprintf("wasmagent did not get through the sequence: %v\n%s", ours.err, d)
	}
	return d
}

// normLine is a normalised line and the op during which it came.
type normLine struct {
	op   int
	text string
}

// normRPC splits a side's lines into responses and events, each in the
// order they came, normalised. (A response and the events of the run it
// starts may come in either order, on pi as on wasmagent.)
func normRPC(p *rpcProc, strict bool) (responses, events []normLine) {
	n := newRPCNorm(strict)
	n.loose, n.badArgs = p.loose, p.srv.BadArgs()
	for _, g := range p.got {
		text := n.line(g.v, g.order)
		switch {
		case text == "":
		case g.v["type"] == "response":
			responses = append(responses, normLine{g.op, text})
		default:
			events = append(events, normLine{g.op, text})
		}
	}
	return responses, events
}

func compareRPC(oursR, oursE, piR, piE []normLine) string {
	var out []string
	for _, c := range []struct {
		what      string
		ours, pis []normLine
	}{{"response", oursR, piR}, {"event", oursE, piE}} {
		for i := range max(len(c.ours), len(c.pis)) {
			var o, p normLine
			if i < len(c.ours) {
				o = c.ours[i]
			}
			if i < len(c.pis) {
				p = c.pis[i]
			}
			if o.text != p.text {
				out = append(out, fmt.Sprintf("%s %d of %d (pi: %d) differs\n ours (op %d): %s\n   pi (op %d): %s",
					c.what, i+1, len(c.ours), len(c.pis), o.op, o.text, p.op, p.text))
				break
			}
		}
	}
	return strings.Join(out, "\n")
}

func dumpRPC(t *testing.T, dir string, seed uint64, side string, got []gotLine) {
	var b strings.Builder
	for _, g := range got {
		fmt.Fprintf(&b, "%d %s\n", g.op, g.line)
	}
	if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("%d-%s.jsonl", seed, side)), []byte(b.String()), 0o644); err != nil {
		t.Errorf("WASMAGENT_RPCDIFF_DUMP: %v", err)
	}
}
