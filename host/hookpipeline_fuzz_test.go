package host_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/wasmagent/wasmagent/host"
)

// FuzzHookPipeline generates chains of before hooks (allow, block,
// rewrite, ask, error, timeout; gates or not; each fallback either way)
// and an approver (none, yes, no), and checks the ToolRunner against a
// plain reading of docs/hooks.md: the non-gates in order, then the gates;
// each hook sees the arguments the previous ones left; the first block,
// declined question, gate rewrite or blocking failure ends the call, and
// otherwise the tool runs with the last rewrite.
func FuzzHookPipeline(f *testing.F) {
	f.Add([]byte{2, 8 | 0, 3}, uint8(1))
	f.Add([]byte{8 | 2, 2, 4 | 16, 5 | 32, 3 | 64}, uint8(0))
	f.Add([]byte{2, 2, 8 | 1, 3}, uint8(2))
	f.Fuzz(func(t *testing.T, spec []byte, approver uint8) {
		if len(spec) > 12 {
			spec = spec[:12]
		}
		type step struct {
			i    int
			kind byte
			gate bool
			o    host.HookOptions
		}
		var steps []step
		var seen []string
		var hooks []host.BeforeToolCallHook
		for i, b := range spec {
			s := step{i: i, kind: b % 6, gate: b&8 != 0}
			s.o = host.HookOptions{Name: fmt.Sprint("h", i), Gate: s.gate}
			if b&16 != 0 {
				s.o.OnError = host.FallbackAllow
			}
			if b&32 != 0 {
				s.o.OnTimeout = host.FallbackAllow
			}
			if b&64 != 0 {
				s.o.OnAsk = host.FallbackAllow
			}
			steps = append(steps, s)
			hooks = append(hooks, host.WithBeforeOptions(host.BeforeToolCallFunc(func(_ context.Context, c *host.ToolCallContext) (*host.BeforeToolCallResult, error) {
				seen = append(seen, fmt.Sprintf("h%d:%s", s.i, c.Args))
				switch s.kind {
				case 1:
					return &host.BeforeToolCallResult{Block: true, Reason: fmt.Sprint("blocked by h", s.i)}, nil
				case 2:
					return &host.BeforeToolCallResult{Args: json.RawMessage(fmt.Sprintf(`{"path":"r%d"}`, s.i))}, nil
				case 3:
					return &host.BeforeToolCallResult{Ask: "ok?"}, nil
				case 4:
					return nil, errors.New("crash")
				case 5:
					return nil, fmt.Errorf("slow: %w", context.DeadlineExceeded)
				}
				return nil, nil
			}), s.o))
		}
		var ap host.Approver
		switch approver % 3 {
		case 1:
			ap = host.ApproverFunc(func(context.Context, host.Question) (bool, error) { return true, nil })
		case 2:
			ap = host.ApproverFunc(func(context.Context, host.Question) (bool, error) { return false, nil })
		}

		// The reference.
		args := `{"path":"a"}`
		var wantSeen []string
		blocked := false
	phases:
		for _, gates := range []bool{false, true} {
			for _, s := range steps {
				if s.gate != gates {
					continue
				}
				wantSeen = append(wantSeen, fmt.Sprintf("h%d:%s", s.i, args))
				ok := true
				switch s.kind {
				case 1:
					ok = false
				case 2:
					if s.gate {
						ok = false
					} else {
						args = fmt.Sprintf(`{"path":"r%d"}`, s.i)
					}
				case 3:
					switch approver % 3 {
					case 0:
						ok = s.o.OnAsk == host.FallbackAllow
					case 2:
						ok = false
					}
				case 4:
					ok = s.o.OnError == host.FallbackAllow
				case 5:
					ok = s.o.OnTimeout == host.FallbackAllow
				}
				if !ok {
					blocked = true
					break phases
				}
			}
		}

		var ran []string
		tr := &host.ToolRunner{Tools: []host.Tool{seenTool(&ran)}, BeforeToolCall: hooks, Approver: ap}
		out := tr.Run(context.Background(), nil, nil, host.ToolCall{ID: "c1", Name: "write", Arguments: json.RawMessage(`{"path":"a"}`)}, nil)
		if fmt.Sprint(seen) != fmt.Sprint(wantSeen) {
			t.Fatalf("hooks saw %v, want %v", seen, wantSeen)
		}
		if out.IsError != blocked {
			t.Fatalf("isError %v, want %v (%q)", out.IsError, blocked, out.Result.Content.TextOf())
		}
		if !blocked && (len(ran) != 1 || ran[0] != args) {
			t.Fatalf("tool ran %q, want %s", ran, args)
		}
		if blocked && len(ran) != 0 {
			t.Fatalf("a blocked call ran: %q", ran)
		}
	})
}
