package rpc_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// diffSeq is one generated session of TestRPCMatchesPi: steps, each some
// commands and the model's answers they consume.
type diffSeq struct {
	Seed  uint64     `json:"seed"`
	Steps []diffStep `json:"steps"`
}

type diffStep struct {
	Turns []diffTurn `json:"turns,omitempty"`
	Ops   []diffOp   `json:"ops"`
}

// diffOp is one thing the driver does, then what it waits for (each
// counted among the lines read during this op).
type diffOp struct {
	// Cmd is a command, sent with "id":"req-N" added; its response is
	// awaited by that id.
	Cmd map[string]any `json:"cmd,omitempty"`
	// Raw is a line sent as it is; Answer names the "command" of the
	// response awaited (pi answers bad lines and unknown commands without
	// the id).
	Raw    string `json:"raw,omitempty"`
	Answer string `json:"answer,omitempty"`
	// Release lets the held stream go on.
	Release bool `json:"release,omitempty"`
	// Ends agent_end events, and with Update the first chunk's delta
	// update, are awaited too.
	Ends   int  `json:"ends,omitempty"`
	Update bool `json:"update,omitempty"`
	// Retry: an auto_retry_end is awaited too.
	Retry bool `json:"retry,omitempty"`
}

func (s *diffSeq) JSON() string {
	b, _ := json.Marshal(s)
	return string(b)
}

func (s *diffSeq) turns() [][]diffTurn {
	var out [][]diffTurn
	for _, st := range s.Steps {
		out = append(out, st.Turns)
	}
	return out
}

// opTimeout bounds one op's wait: it tells a hang from slowness (node
// starting under the race detector's load), not a speed target.
const opTimeout = 30 * time.Second

// run drives p through s; it stops at the first op whose wait fails and
// says which.
func (s *diffSeq) run(p *rpcProc) error {
	k := 0
	for si, st := range s.Steps {
		p.srv.Step(si)
		for _, op := range st.Ops {
			k++
			var want []func(map[string]any) bool
			switch {
			case op.Release:
				p.srv.Release()
			case op.Cmd != nil:
				id := fmt.Sprintf("req-%d", k)
				c := map[string]any{"id": id}
				for key, v := range op.Cmd {
					if v == "$PROVIDER" {
						v = p.provider
					}
					c[key] = v
				}
				line, _ := json.Marshal(c)
				if err := p.send(line); err != nil {
					return fmt.Errorf("step %d: %v", si+1, err)
				}
				want = append(want, func(v map[string]any) bool { return v["type"] == "response" && v["id"] == id })
			default:
				if err := p.send([]byte(op.Raw)); err != nil {
					return fmt.Errorf("step %d: %v", si+1, err)
				}
				want = append(want, func(v map[string]any) bool { return v["type"] == "response" && v["command"] == op.Answer })
			}
			for range op.Ends {
				want = append(want, func(v map[string]any) bool { return v["type"] == "agent_end" })
			}
			if op.Retry {
				want = append(want, func(v map[string]any) bool { return v["type"] == "auto_retry_end" })
			}
			if op.Update {
				// the first chunk's delta: its last update (pi writes
				// its events late; waiting for the first, a start, let
				// the delta come after the next command's answer)
				want = append(want, func(v map[string]any) bool {
					ev, _ := v["assistantMessageEvent"].(map[string]any)
					t, _ := ev["type"].(string)
					return v["type"] == "message_update" && strings.HasSuffix(t, "_delta")
				})
			}
			if err := p.await(k, opTimeout, want...); err != nil {
				return fmt.Errorf("step %d, op %d: %v", si+1, k, err)
			}
		}
	}
	return nil
}
