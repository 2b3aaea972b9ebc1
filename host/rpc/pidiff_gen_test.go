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
		switch rng.IntN(8) {
		case 7:
			s.Steps = append(s.Steps, g.load())
		case 0, 1:
			s.Steps = append(s.Steps, g.run(retry))
		case 2:
			s.Steps = append(s.Steps, g.held())
		case 3:
			s.Steps = append(s.Steps, g.branch())
		case 4:
			s.Steps = append(s.Steps, g.switchTo())
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

// thinkingLevels are pi's thinking levels.
var thinkingLevels = []string{"off", "minimal", "low", "medium", "high", "xhigh"}

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

// images are none, or one or two small images of any type pi takes
// (sent as they are: neither side decodes them).
func (g *rpcGen) images() []any {
	var out []any
	for k := range g.rng.IntN(3) {
		mime := []string{"image/png", "image/jpeg", "image/gif", "image/webp"}[g.rng.IntN(4)]
		out = append(out, map[string]any{"type": "image", "data": fmt.Sprintf("iVBORw0KGgo%dAAAA", k), "mimeType": mime})
	}
	return out
}

// message is a command that carries a user message: text, and
// sometimes images.
func (g *rpcGen) message(typ string, kv ...any) diffOp {
	kv = append([]any{"message", g.text()}, kv...)
	if imgs := g.images(); imgs != nil {
		kv = append(kv, "images", imgs)
	}
	return cmd(typ, kv...)
}

func (g *rpcGen) text() string {
	g.n++
	words := []string{"alpha", "beta", "gamma", "delta", "é", "中文", "\"q\"", "a\\b", "\u2028", "<a&b>", "\ufffd"}
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
		kind := []string{"call", "call", "textcall", "calls", "badargs", "mixed"}[g.rng.IntN(6)]
		turns = append(turns, diffTurn{Kind: kind, Text: g.text()})
	}
	kinds := []string{"text", "text", "thinking", "error", "cut"}
	if !canFail {
		kinds = kinds[:3]
	}
	return append(turns, diffTurn{Kind: kinds[g.rng.IntN(len(kinds))], Text: g.text()})
}

func (g *rpcGen) run(retry bool) diffStep {
	turns := g.answer(true)
	op := g.message("prompt")
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
	p := g.message("prompt")
	p.Update = true
	st.Ops = append(st.Ops, p)
	for range 1 + g.rng.IntN(3) {
		switch g.rng.IntN(7) {
		case 0, 1:
			st.Ops = append(st.Ops, g.message("steer"))
		case 2:
			st.Ops = append(st.Ops, g.message("follow_up"))
		case 3:
			st.Ops = append(st.Ops, g.message("prompt", "streamingBehavior", []string{"steer", "followUp"}[g.rng.IntN(2)]))
		case 4:
			st.Ops = append(st.Ops, g.message("prompt")) // refused: the agent is busy
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
		switch g.rng.IntN(22) {
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
			op = cmd("set_thinking_level", "level", thinkingLevels[g.rng.IntN(len(thinkingLevels))])
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
		case 19:
			op = cmd("cycle_thinking_level")
		case 20:
			// wasmagent does not compact: it refuses, pi records the
			// setting (get_state's autoCompactionEnabled is not compared)
			op = cmd("set_auto_compaction", "enabled", g.rng.IntN(2) == 0)
			op.Loose = true
		default:
			op = g.message([]string{"steer", "follow_up"}[g.rng.IntN(2)])
		}
		st.Ops = append(st.Ops, op)
	}
	return st
}

// branch forks the session at one of its user messages (or at an id
// that is none), after asking for them; it may name the new session.
func (g *rpcGen) branch() diffStep {
	st := diffStep{Ops: []diffOp{cmd("get_fork_messages")}}
	at := fmt.Sprintf("$FORK:%d", g.rng.IntN(4))
	if g.rng.IntN(6) == 0 {
		at = "no-such-entry"
	}
	st.Ops = append(st.Ops, cmd("fork", "entryId", at), cmd("get_state"))
	if g.rng.IntN(2) == 0 {
		st.Ops = append(st.Ops, cmd("get_messages"))
	}
	return st
}

// switchTo notes the session file, starts another session and switches
// to a session file written earlier in the run, or to a file that is
// missing or not a session. pi makes a new session at a missing or
// broken path (overwriting a file that is not a session); wasmagent
// refuses both (docs/rpc.md), and a new session follows so that both
// sides go on from the same state.
func (g *rpcGen) switchTo() diffStep {
	st := diffStep{Ops: []diffOp{cmd("get_state")}}
	if g.rng.IntN(2) == 0 {
		st.Ops = append(st.Ops, cmd("new_session"))
	}
	switch g.rng.IntN(5) {
	case 0:
		op := cmd("switch_session", "sessionPath", []string{"$MISSING", "$GARBAGE"}[g.rng.IntN(2)])
		op.Loose = true
		st.Ops = append(st.Ops, op, cmd("new_session"))
	default:
		st.Ops = append(st.Ops, cmd("switch_session", "sessionPath", fmt.Sprintf("$FILE:%d", g.rng.IntN(3))))
	}
	return diffStep{Ops: append(st.Ops, cmd("get_state"), cmd("get_messages"))}
}

// load switches to a session file written by hand in pi's format
// (hosttest.Given.SessionFile, loadable): messages in the shapes pi
// passes on untouched (string contents, members no type declares,
// timestamps of other types…), every entry type; then asks what the
// session holds, and now and then prompts on it.
func (g *rpcGen) load() diffStep {
	st := diffStep{Ops: []diffOp{cmd("switch_session", "sessionPath", fmt.Sprintf("$GIVEN:%d", g.rng.IntN(1000))), cmd("get_messages"), cmd("get_state")}}
	for _, c := range []string{"get_session_stats", "get_last_assistant_text", "get_fork_messages"} {
		if g.rng.IntN(2) == 0 {
			st.Ops = append(st.Ops, cmd(c))
		}
	}
	if g.rng.IntN(2) == 0 {
		p := g.message("prompt")
		p.Ends = 1
		st.Turns = g.answer(false)
		st.Ops = append(st.Ops, p, cmd("get_messages"))
	}
	return st
}
