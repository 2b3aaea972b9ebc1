package eventwire_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/wasmagent/wasmagent/host"
	"github.com/wasmagent/wasmagent/host/eventwire"
)

// toolLines counts, per tool call id, the tool_execution_update lines an
// Encoder sends and their bytes (with the line feed).
type toolLines struct {
	lines, bytes map[string]int64
	last         map[string]string // the last partial result sent
}

func newToolLines() *toolLines {
	return &toolLines{lines: map[string]int64{}, bytes: map[string]int64{}, last: map[string]string{}}
}

func (c *toolLines) send(obj []byte) error {
	var e struct {
		Type    string          `json:"type"`
		ID      string          `json:"toolCallId"`
		Partial json.RawMessage `json:"partialResult"`
	}
	if err := json.Unmarshal(obj, &e); err != nil {
		return err
	}
	if e.Type == "tool_execution_update" {
		c.lines[e.ID]++
		c.bytes[e.ID] += int64(len(obj) + 1)
		c.last[e.ID] = string(e.Partial)
	}
	return nil
}

// A tool call's updates cost at most Floor + Ratio × the bytes of the
// partial results it sent, whatever their number and its arguments'
// size, at every moment; updates of calls within their budget (small
// arguments, progress that grows) all go out, as pi sends them. Calls
// are generated: 1–3 at once, arguments of 0–8 KB, 1–100 updates each
// of 0–1 KB (WASMAGENT_TOOLUPDATES_N sequences, default 5). On the old
// main every update went out.
func TestToolUpdatesAreBounded(t *testing.T) {
	n := 5
	if v, err := strconv.Atoi(os.Getenv("WASMAGENT_TOOLUPDATES_N")); err == nil {
		n = v
	}
	const floor, ratio = 16 << 10, 4
	for seed := range n {
		r := rand.New(rand.NewPCG(uint64(seed), 11))
		c := newToolLines()
		enc := eventwire.New(c.send, eventwire.Options{Floor: floor, Ratio: ratio})
		ctx := context.Background()
		type call struct {
			id      string
			args    json.RawMessage
			left    int
			partial int64 // bytes of partial results sent to the encoder
			sent    int64 // updates given to the encoder
			full    int64 // more than their lines would cost, all sent
			size    int   // the partial result's size: fixed, or growing
			grows   bool
		}
		var calls []*call
		for i := range 1 + r.IntN(3) {
			args := fmt.Sprintf(`{"a":%q}`, strings.Repeat("x", r.IntN(8<<10)))
			calls = append(calls, &call{id: fmt.Sprintf("c%d", i), args: json.RawMessage(args), left: 1 + r.IntN(100), size: r.IntN(1 << 10), grows: r.IntN(2) == 0})
		}
		for len(calls) > 0 {
			i := r.IntN(len(calls))
			k := calls[i]
			if k.grows {
				k.size += 1 + r.IntN(64)
			}
			p := fmt.Sprintf(`{"content":[{"type":"text","text":%q}]}`, strings.Repeat("y", k.size))
			k.partial += int64(len(p))
			k.sent++
			k.full += int64(len(k.args)+len(p)) + 200
			if err := enc.Event(ctx, host.ToolExecutionUpdateEvent{ToolCallID: k.id, ToolName: "t", Args: k.args, PartialResult: json.RawMessage(p)}); err != nil {
				t.Fatal(err)
			}
			if got, bound := c.bytes[k.id], floor+ratio*k.partial; got > bound {
				t.Fatalf("seed %d: call %s (arguments %d bytes, %d updates of %d bytes in all): %d bytes of update lines, over the bound %d", seed, k.id, len(k.args), k.sent, k.partial, got, bound)
			}
			if k.left--; k.left == 0 {
				// Small arguments and updates: within budget all along.
				if k.full <= floor && c.lines[k.id] != k.sent {
					t.Fatalf("seed %d: call %s with %d-byte arguments sent %d updates, %d went out, want all", seed, k.id, len(k.args), k.sent, c.lines[k.id])
				}
				if err := enc.Event(ctx, host.ToolExecutionEndEvent{ToolCallID: k.id, ToolName: "t", Result: host.ToolResult{Content: host.Text("ok")}}); err != nil {
					t.Fatal(err)
				}
				calls = append(calls[:i], calls[i+1:]...)
			}
		}
	}
}

// Empty updates on large arguments, the amplification itself: the bound
// holds and ModeAll still sends every one. On the old main the 100
// updates wrote 1.6 MB for a floor of 16 KiB.
func TestEmptyToolUpdatesOnLargeArguments(t *testing.T) {
	args := json.RawMessage(fmt.Sprintf(`{"a":%q}`, strings.Repeat("x", 16<<10)))
	for _, mode := range []eventwire.Mode{eventwire.ModePi, eventwire.ModeDeltas, eventwire.ModeAll} {
		c := newToolLines()
		enc := eventwire.New(c.send, eventwire.Options{Mode: mode, Floor: 16 << 10})
		for range 100 {
			if err := enc.Event(context.Background(), host.ToolExecutionUpdateEvent{ToolCallID: "c", ToolName: "t", Args: args, PartialResult: json.RawMessage(`{}`)}); err != nil {
				t.Fatal(err)
			}
		}
		t.Logf("%s: %d lines, %d bytes", mode, c.lines["c"], c.bytes["c"])
		if mode == eventwire.ModeAll {
			if c.lines["c"] != 100 {
				t.Fatalf("ModeAll sent %d of 100 updates", c.lines["c"])
			}
			continue
		}
		if bound := int64(16<<10 + eventwire.DefaultRatio*100*2); c.bytes["c"] > bound {
			t.Fatalf("%s: 100 empty updates on %d bytes of arguments wrote %d bytes, over %d", mode, len(args), c.bytes["c"], bound)
		}
	}
}
