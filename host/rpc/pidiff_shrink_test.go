package rpc_test

import (
	"encoding/json"
	"testing"
)

// shrinkRPCSeq makes seq smaller while it still differs: each round tries
// every one-step reduction (rpcReductions) and keeps the first that still
// differs, until none does. Each try runs both sides again.
func shrinkRPCSeq(t *testing.T, node, binary string, seq *diffSeq, d string, strict bool) (*diffSeq, string) {
	t.Helper()
	for round := 0; round < 30; round++ {
		found := false
		for _, c := range rpcReductions(seq) {
			if cd := diffRPCSeq(t, node, binary, c, strict); cd != "" {
				seq, d, found = c, cd, true
				break
			}
		}
		if !found {
			break
		}
	}
	return seq, d
}

// rpcReductions returns the sequences one step smaller than seq: without
// one step (the last, which shows the state, stays), without one command
// that waits for nothing but its answer, or without one of the model's
// turns.
func rpcReductions(seq *diffSeq) []*diffSeq {
	var out []*diffSeq
	for i := range len(seq.Steps) - 1 {
		c := cloneRPCSeq(seq)
		c.Steps = append(c.Steps[:i], c.Steps[i+1:]...)
		out = append(out, c)
	}
	for i, st := range seq.Steps {
		for j, op := range st.Ops {
			if op.Ends > 0 || op.Update || op.Release || len(st.Ops) == 1 {
				continue
			}
			c := cloneRPCSeq(seq)
			c.Steps[i].Ops = append(c.Steps[i].Ops[:j], c.Steps[i].Ops[j+1:]...)
			out = append(out, c)
		}
		for j := range st.Turns {
			if st.Turns[j].Hold {
				continue
			}
			c := cloneRPCSeq(seq)
			c.Steps[i].Turns = append(c.Steps[i].Turns[:j], c.Steps[i].Turns[j+1:]...)
			out = append(out, c)
		}
	}
	return out
}

func cloneRPCSeq(seq *diffSeq) *diffSeq {
	var c diffSeq
	if err := json.Unmarshal([]byte(seq.JSON()), &c); err != nil {
		panic(err) // our own JSON: cannot fail
	}
	return &c
}
