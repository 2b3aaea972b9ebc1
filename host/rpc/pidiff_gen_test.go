package rpc_test

import (
	"fmt"
	"math/rand/v2"
)

// generateRPCSeq makes the session of one seed: a few steps, each a run
// (plain, or held mid-stream while the driver queues, asks and aborts) or
// commands between runs, and at the end the commands that show the whole
// state. Most seeds turn pi's auto-retry off first (a retry waits 2 s).
func generateRPCSeq(seed uint64) *diffSeq {
	rng := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
	retry := rng.IntN(8) == 0
	g := &rpcGen{rng: rng, retry: retry}
	s := &diffSeq{Seed: seed}
	if !retry {
		s.Steps = append(s.Steps, diffStep{Ops: []diffOp{cmd("set_auto_retry", "enabled", false)}})
	}
	for range 2 + rng.IntN(5) {
		switch rng.IntN(5) {
		case 0, 1:
			s.Steps = append(s.Steps, g.run(retry))
		case 2:
			s.Steps = append(s.Steps, g.held())
		default:
			s.Steps = append(s.Steps, g.idle())
		}
	}
	s.Steps = append(s.Steps, diffStep{Ops: []diffOp{
		cmd("get_messages"), cmd("get_session_stats"), cmd("get_state"),
		cmd("get_last_assistant_text"), cmd("get_fork_messages"),
	}})
	return s
}

type rpcGen struct {
	rng   *rand.Rand
	n     int
	retry bool // pi's auto-retry stays on
}

func cmd(typ string, kv ...any) diffOp {
	c := map[string]any{"type": typ}
	for i := 0; i+1 < len(kv); i += 2 {
		c[kv[i].(string)] = kv[i+1]
	}
	return diffOp{Cmd: c}
}

func (g *rpcGen) text() string {
	g.n++
	words := []string{"alpha", "beta", "gamma", "delta", "é", "中文", "\"q\"", "a\\b", "\u2028"}
	s := fmt.Sprintf("t%d", g.n)
	for range g.rng.IntN(4) {
		s += " " + words[g.rng.IntN(len(words))]
	}
	return s
}

// answer is the model's last turn of a run: text, thinking, an error or
// a cut stream, after up to two calls to a tool neither side has. With
// auto-retry on, only a plain run fails (its op waits for the retry).
func (g *rpcGen) answer(canFail bool) []diffTurn {
	var turns []diffTurn
	for range g.rng.IntN(3) {
		turns = append(turns, diffTurn{Kind: "call", Text: g.text()})
	}
	kinds := []string{"text", "text", "thinking", "error", "cut"}
	if !canFail {
		kinds = kinds[:3]
	}
	return append(turns, diffTurn{Kind: kinds[g.rng.IntN(len(kinds))], Text: g.text()})
}

func (g *rpcGen) run(retry bool) diffStep {
	turns := g.answer(true)
	op := cmd("prompt", "message", g.text())
	op.Ends = 1
	if last := turns[len(turns)-1].Kind; retry && (last == "error" || last == "cut") {
		// pi retries once after 2 s: the retried run ends too
		turns = append(turns, diffTurn{Kind: "text", Text: g.text()})
		op.Ends, op.Retry = 2, true
	}
	return diffStep{Turns: turns, Ops: []diffOp{op}}
}

// held is a run whose first answer stops after its first chunk while
// the driver sends commands; then it goes on, or the driver aborts it.
func (g *rpcGen) held() diffStep {
	first := diffTurn{Kind: []string{"text", "thinking", "call"}[g.rng.IntN(3)], Text: g.text() + " more words", Hold: true}
	st := diffStep{Turns: []diffTurn{first}}
	p := cmd("prompt", "message", g.text())
	p.Update = true
	st.Ops = append(st.Ops, p)
	for range 1 + g.rng.IntN(3) {
		switch g.rng.IntN(7) {
		case 0, 1:
			st.Ops = append(st.Ops, cmd("steer", "message", g.text()))
		case 2:
			st.Ops = append(st.Ops, cmd("follow_up", "message", g.text()))
		case 3:
			st.Ops = append(st.Ops, cmd("prompt", "message", g.text(), "streamingBehavior", []string{"steer", "followUp"}[g.rng.IntN(2)]))
		case 4:
			st.Ops = append(st.Ops, cmd("prompt", "message", g.text())) // refused: the agent is busy
		case 5:
			st.Ops = append(st.Ops, cmd("get_state"))
		default:
			st.Ops = append(st.Ops, cmd("get_messages"))
		}
	}
	if g.rng.IntN(4) == 0 {
		abort := cmd("abort")
		abort.Ends = 1
		return diffStep{Turns: st.Turns, Ops: append(st.Ops, abort)}
	}
	st.Turns = append(st.Turns, g.answer(!g.retry)...)
	return diffStep{Turns: st.Turns, Ops: append(st.Ops, diffOp{Release: true, Ends: 1})}
}

// idle is one to three commands sent while no run is active.
func (g *rpcGen) idle() diffStep {
	var st diffStep
	for range 1 + g.rng.IntN(3) {
		var op diffOp
		switch g.rng.IntN(20) {
		case 0:
			op = cmd("get_state")
		case 1:
			op = cmd("get_messages")
		case 2:
			op = cmd("get_session_stats")
		case 3:
			op = cmd("get_last_assistant_text")
		case 4:
			op = cmd("get_fork_messages")
		case 5:
			op = cmd("get_commands")
		case 6:
			op = cmd("get_available_models")
		case 7:
			// only off: pi turns every level of a model that does not
			// reason into off, wasmagent keeps it (docs/rpc.md)
			op = cmd("set_thinking_level", "level", "off")
		case 8:
			op = cmd("set_steering_mode", "mode", []string{"all", "one-at-a-time"}[g.rng.IntN(2)])
		case 9:
			op = cmd("set_follow_up_mode", "mode", []string{"all", "one-at-a-time"}[g.rng.IntN(2)])
		case 10:
			op = cmd("set_session_name", "name", []string{g.text(), "  padded  ", "   "}[g.rng.IntN(3)])
		case 11:
			op = cmd("set_model", "provider", "$PROVIDER", "modelId", []string{"m", "nope"}[g.rng.IntN(2)])
		case 12:
			op = cmd("cycle_model")
		case 13:
			op = cmd("new_session")
		case 14:
			op = cmd("abort")
		case 15:
			op = cmd("abort_retry")
		case 16:
			op = cmd("set_auto_retry", "enabled", g.retry)
		case 17:
			op = diffOp{Raw: `{"type":"frobnicate","id":"x"}`, Answer: "frobnicate"}
		case 18:
			op = diffOp{Raw: `{"type":`, Answer: "parse"}
		default:
			op = cmd([]string{"steer", "follow_up"}[g.rng.IntN(2)], "message", g.text())
		}
		st.Ops = append(st.Ops, op)
	}
	return st
}
