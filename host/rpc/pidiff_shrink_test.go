package rpc_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// shrinkRPCSeq makes seq smaller while it still differs the same way
// (diffKey: a smaller sequence that differs otherwise is another
// difference, and would hide this one): each round tries every one-step
// reduction (rpcReductions) and keeps the first that still differs so,
// until none does. Each try runs both sides again.
func shrinkRPCSeq(t *testing.T, node, binary string, seq *diffSeq, d string, strict bool) (*diffSeq, string) {
	t.Helper()
	key := diffKey(d)
	for round := 0; round < 30; round++ {
		found := false
		for _, c := range rpcReductions(seq) {
			if cd := diffRPCSeq(t, node, binary, c, strict); cd != "" && diffKey(cd) == key {
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

// diffKey names the kind of a difference compareRPC reports: response or
// event, and the command or event type (with the stream event's type) of
// the first differing line, pi's or, when pi has none there, ours.
func diffKey(d string) string {
	what, _, _ := strings.Cut(d, " ")
	var side string
	for _, l := range strings.Split(d, "\n") {
		l = strings.TrimSpace(l)
		if _, js, ok := strings.Cut(l, "): "); ok && (strings.HasPrefix(l, "pi (op") || side == "") {
			if strings.HasPrefix(l, "pi (op") && js == "" {
				continue
			}
			side = js
		}
	}
	var v map[string]any
	json.Unmarshal([]byte(side), &v)
	ev, _ := v["assistantMessageEvent"].(map[string]any)
	return fmt.Sprint(what, " ", v["type"], " ", v["command"], " ", ev["type"])
}

func TestDiffKey(t *testing.T) {
	resp := "response 3 of 4 (pi: 5) differs\n ours (op 3): {\"type\":\"response\",\"command\":\"switch_session\",\"success\":true}\n   pi (op 3): {\"type\":\"response\",\"command\":\"switch_session\"}"
	other := "response 3 of 4 (pi: 5) differs\n ours (op 3): {\"type\":\"response\",\"command\":\"get_state\"}\n   pi (op 3): {\"type\":\"response\",\"command\":\"get_state\"}"
	extra := "event 9 of 9 (pi: 8) differs\n ours (op 2): {\"type\":\"message_update\",\"assistantMessageEvent\":{\"type\":\"text_end\"}}\n   pi (op 0): "
	for _, c := range []struct{ d, want string }{
		{resp, "response response switch_session <nil>"},
		{other, "response response get_state <nil>"},
		{extra, "event message_update <nil> text_end"},
	} {
		if got := diffKey(c.d); got != c.want {
			t.Errorf("diffKey(%q) = %q, want %q", c.d, got, c.want)
		}
	}
}
