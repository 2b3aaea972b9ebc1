package host_test

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"testing"
)

// shrinkPiScenario makes sc smaller while it still differs: each round
// tries every one-step reduction (piReductions) on pi in one node process
// and keeps the first that still differs, until none does.
func shrinkPiScenario(t *testing.T, node string, sc *piScenario, d string) (*piScenario, string) {
	t.Helper()
	for round := 0; round < 50; round++ {
		cands := piReductions(sc)
		if len(cands) == 0 {
			break
		}
		theirs := runPiScenariosOnPi(t, node, cands)
		found := false
		for i, c := range cands {
			if cd := diffPiScenario(t, c, theirs[i]); cd != "" {
				sc, d, found = c, cd, true
				break
			}
		}
		if !found {
			break
		}
	}
	return sc, d
}

// piReductions returns the scenarios one step smaller than sc: without one
// turn, one tool call, one queued message, one unused tool, a tool's
// schema or preparer, a prompt, or one optional key (piKeyReductions).
func piReductions(sc *piScenario) []*piScenario {
	var out []*piScenario
	try := func(f func(c *piScenario) bool) {
		c := clonePiScenario(sc)
		if f(c) {
			out = append(out, c)
		}
	}
	for i := range sc.Turns {
		try(func(c *piScenario) bool {
			for _, b := range c.Turns[i].Content {
				c.dropCall(b.ID)
			}
			c.Turns = append(c.Turns[:i], c.Turns[i+1:]...)
			return true
		})
		for j, b := range sc.Turns[i].Content {
			try(func(c *piScenario) bool {
				c.dropCall(b.ID)
				c.Turns[i].Content = append(c.Turns[i].Content[:j], c.Turns[i].Content[j+1:]...)
				return true
			})
		}
	}
	for i := range sc.Turns {
		for j := range sc.Turns[i].Raw {
			try(func(c *piScenario) bool {
				c.Turns[i].Raw = append(c.Turns[i].Raw[:j], c.Turns[i].Raw[j+1:]...)
				return len(c.Turns[i].Raw) > 0
			})
		}
	}
	for i := range sc.Queue {
		try(func(c *piScenario) bool { c.Queue = append(c.Queue[:i], c.Queue[i+1:]...); return true })
	}
	// Never a reduction that makes a sequential batch parallel: its calls
	// do not wait for each other, so its end order would be scheduling.
	for i := range sc.Tools {
		try(func(c *piScenario) bool {
			t := &c.Tools[i]
			if !t.Prepare && t.Parameters == nil {
				return false
			}
			t.Prepare, t.Parameters = false, nil
			return true
		})
	}
	try(func(c *piScenario) bool { r := c.Agent && !c.agentOnly(); c.Agent = false; return r })
	for i, t := range sc.Tools {
		if !sc.callsTool(t.Name) {
			try(func(c *piScenario) bool { c.Tools = append(c.Tools[:i], c.Tools[i+1:]...); return true })
		}
	}
	for i := range sc.Turns {
		try(func(c *piScenario) bool { r := c.Turns[i].Digest; c.Turns[i].Digest = false; return r })
	}
	try(func(c *piScenario) bool {
		r := len(c.Prompts) > 1
		c.Prompts = c.Prompts[:min(1, len(c.Prompts))]
		return r
	})
	return append(out, piKeyReductions(sc)...)
}

// piKeyReductions returns sc without one optional key: of the scenario,
// of one call's behaviour, or of one of its hooks' answers. (Never a wait:
// without it a parallel batch's order would be scheduling.)
func piKeyReductions(sc *piScenario) []*piScenario {
	structural := map[string]bool{"name": true, "seed": true, "chunkTokens": true, "prompts": true, "turns": true,
		"tools": true, "calls": true, "queue": true, "agent": true, "toolExecution": true, "wait": true}
	var out []*piScenario
	without := func(path ...string) {
		var m map[string]any
		json.Unmarshal([]byte(sc.JSON()), &m)
		obj := m
		for _, k := range path[:len(path)-1] {
			obj = obj[k].(map[string]any)
		}
		delete(obj, path[len(path)-1])
		b, _ := json.Marshal(m)
		var c piScenario
		if json.Unmarshal(b, &c) == nil {
			out = append(out, &c)
		}
	}
	var m map[string]any
	json.Unmarshal([]byte(sc.JSON()), &m)
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if !structural[k] {
			without(k)
		}
	}
	calls, _ := m["calls"].(map[string]any)
	for _, id := range slices.Sorted(maps.Keys(calls)) {
		call := calls[id].(map[string]any)
		for _, k := range slices.Sorted(maps.Keys(call)) {
			if structural[k] {
				continue
			}
			without("calls", id, k)
			if hook, ok := call[k].(map[string]any); ok && len(hook) > 1 {
				for _, hk := range slices.Sorted(maps.Keys(hook)) {
					without("calls", id, k, hk)
				}
			}
		}
	}
	return out
}

// agentOnly reports whether sc uses what only the Agent has (a failing
// listener, its state, a second prompt, its actions).
func (sc *piScenario) agentOnly() bool {
	return sc.FailAt != nil || sc.State || sc.Then != nil || sc.ConvertFail > 0 || sc.NoModel || slices.ContainsFunc(sc.Queue, func(q piQueued) bool {
		return piAction[q.Kind] != nil || q.Kind == "prompt" || q.Kind == "continue"
	})
}

func (sc *piScenario) callsTool(name string) bool {
	for _, t := range sc.Turns {
		for _, b := range t.Content {
			if b.Type == "toolCall" && b.Name == name {
				return true
			}
		}
	}
	return false
}

// dropCall forgets call id: its behaviour and every wait for it.
func (sc *piScenario) dropCall(id string) {
	if id == "" {
		return
	}
	delete(sc.Calls, id)
	for _, c := range sc.Calls {
		for i, w := range c.Wait {
			if w == id {
				c.Wait = append(c.Wait[:i:i], c.Wait[i+1:]...)
				break
			}
		}
	}
	var q []piQueued
	for _, x := range sc.Queue {
		if !strings.HasSuffix(x.On, " "+id) {
			q = append(q, x)
		}
	}
	sc.Queue = q
}

func clonePiScenario(sc *piScenario) *piScenario {
	var c piScenario
	if err := json.Unmarshal([]byte(sc.JSON()), &c); err != nil {
		panic(err) // our own JSON: cannot fail
	}
	return &c
}
