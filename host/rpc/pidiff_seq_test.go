package rpc_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/wasmagent/wasmagent/host/hosttest"
)

// diffSeq is one generated session of TestRPCMatchesPi: steps, each some
// commands and the model's answers they consume.
type diffSeq struct {
	Seed  uint64     `json:"seed"`
	Steps []diffStep `json:"steps"`
	// Given holds, by n, the session file that $GIVEN:n stands for, as
	// it was when pi's answers were recorded (a recorded case keeps its
	// own: hosttest.Given changes); without it the file is generated.
	Given map[string]string `json:"given,omitempty"`
}

// givenPlaceholders returns the n of every $GIVEN:n the commands name.
func (s *diffSeq) givenPlaceholders() []string {
	var out []string
	for _, st := range s.Steps {
		for _, op := range st.Ops {
			for _, v := range op.Cmd {
				if str, ok := v.(string); ok && strings.HasPrefix(str, "$GIVEN:") {
					out = append(out, strings.TrimPrefix(str, "$GIVEN:"))
				}
			}
		}
	}
	return out
}

// givenFile is the session file of seed n that hosttest.Given writes in
// pi's format, "$PROVIDER" standing for the side's provider.
func givenFile(n int) string {
	id := fmt.Sprintf("0190a000-0000-7000-8000-%012d", n)
	return hosttest.Given{R: rand.New(rand.NewPCG(uint64(n), 7))}.SessionFile(id, true)
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
	// Loose: where wasmagent deliberately answers otherwise (docs/rpc.md),
	// only that the response came is compared.
	Loose bool `json:"loose,omitempty"`
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
	p.given = s.Given
	k := 0
	for si, st := range s.Steps {
		p.srv.Step(si)
		for _, op := range st.Ops {
			k++
			var want []func(map[string]any) bool
			fresh, freshNeeded := "", false
			switch {
			case op.Release:
				p.srv.Release()
			case op.Cmd != nil:
				id := fmt.Sprintf("req-%d", k)
				c := map[string]any{"id": id}
				for key, v := range op.Cmd {
					c[key] = p.resolve(v)
				}
				// a switch to no session is answered otherwise on purpose
				// (docs/rpc.md); a new session follows, so that both sides
				// go on from the same state
				if path, ok := c["sessionPath"].(string); ok && c["type"] == "switch_session" {
					if !holdsAnswer(path) {
						op.Loose, freshNeeded = true, !op.Loose
					}
				}
				if op.Loose {
					p.loose[id] = true
				}
				if freshNeeded {
					fresh = id + "-new"
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
			from := len(p.got)
			if err := p.await(k, opTimeout, want...); err != nil {
				return fmt.Errorf("step %d, op %d: %v", si+1, k, err)
			}
			p.learn(p.got[from:])
			if fresh != "" {
				p.send([]byte(`{"type":"new_session","id":"` + fresh + `"}`))
				if err := p.await(k, opTimeout, func(v map[string]any) bool { return v["id"] == fresh }); err != nil {
					return fmt.Errorf("step %d, op %d: %v", si+1, k, err)
				}
			}
		}
	}
	return nil
}

// resolve gives a command's value as this side sends it: placeholders
// stand for what differs by side.
//
//	$PROVIDER  the provider of the side's model
//	$FORK:n    the entryId of the n-th (mod count) message of the side's
//	           last get_fork_messages answer ("no-such-entry" when none)
//	$FILE:n    the n-th (mod count) session file the side's get_state
//	           answers named that holds an answer ($MISSING when none)
//	$MISSING   a session file that does not exist
//	$GARBAGE   a file that is not a session (written by the driver)
//	$GIVEN:n   the session file of seed n that hosttest.Given writes in
//	           pi's format, or the sequence's copy of it (diffSeq.Given;
//	           written by the driver)
func (p *rpcProc) resolve(v any) any {
	s, ok := v.(string)
	if !ok || !strings.HasPrefix(s, "$") {
		return v
	}
	name, arg, _ := strings.Cut(s, ":")
	n, _ := strconv.Atoi(arg)
	switch name {
	case "$PROVIDER":
		return p.provider
	case "$FORK":
		if len(p.forks) == 0 {
			return "no-such-entry"
		}
		return p.forks[n%len(p.forks)]
	case "$FILE":
		var written []string
		for _, f := range p.files {
			if holdsAnswer(f) {
				written = append(written, f)
			}
		}
		if len(written) == 0 {
			return p.resolve("$MISSING")
		}
		return written[n%len(written)]
	case "$MISSING":
		return filepath.Join(p.dir, "sessions", "missing.jsonl")
	case "$GIVEN":
		// each side its own copy, written once (the side may append)
		f := filepath.Join(p.dir, fmt.Sprintf("given-%d.jsonl", n))
		if _, err := os.Stat(f); err != nil {
			file, kept := p.given[arg]
			if !kept {
				file = givenFile(n)
			}
			os.WriteFile(f, []byte(strings.ReplaceAll(file, "$PROVIDER", p.provider)), 0o644)
		}
		return f
	case "$GARBAGE":
		f := filepath.Join(p.dir, "garbage.jsonl")
		os.WriteFile(f, []byte("not a session\n{\"type\":\"message\"}\n"), 0o644)
		return f
	}
	return v
}

// learn records what later placeholders need from the answers to an op:
// fork points and session files.
func (p *rpcProc) learn(lines []gotLine) {
	for _, g := range lines {
		if g.v["type"] != "response" {
			continue
		}
		data, _ := g.v["data"].(map[string]any)
		switch g.v["command"] {
		case "get_fork_messages":
			msgs, _ := data["messages"].([]any)
			p.forks = p.forks[:0]
			for _, m := range msgs {
				m, _ := m.(map[string]any)
				if id, ok := m["entryId"].(string); ok {
					p.forks = append(p.forks, id)
				}
			}
		case "get_state":
			if f, ok := data["sessionFile"].(string); ok && !slices.Contains(p.files, f) {
				p.files = append(p.files, f)
			}
		}
	}
}

// holdsAnswer says whether the session file at path holds an answer. pi
// writes a session's file once it does, wasmagent at its first entry
// (docs/rpc.md): a file without one counts as not written on both sides.
func holdsAnswer(path string) bool {
	b, err := os.ReadFile(path)
	return err == nil && bytes.Contains(b, []byte(`"role":"assistant"`))
}
