package rpc_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"

	"github.com/wasmagent/wasmagent/host"
	"github.com/wasmagent/wasmagent/host/eventwire"
	"github.com/wasmagent/wasmagent/host/rpc"
	"github.com/wasmagent/wasmagent/host/scripted"
	"github.com/wasmagent/wasmagent/host/session"
)

// wireUpdate is what a pi-format consumer reads of a message_update or
// message_end line.
type wireUpdate struct {
	Type    string       `json:"type"`
	Message *wireMessage `json:"message"`
	Event   *struct {
		Type    string       `json:"type"`
		Delta   string       `json:"delta"`
		Partial *wireMessage `json:"partial"`
	} `json:"assistantMessageEvent"`
}

type wireMessage struct {
	Role    string `json:"role"`
	Content []struct {
		Text string `json:"text"`
	} `json:"content"`
}

func (m *wireMessage) text() string {
	if m == nil || len(m.Content) == 0 {
		return ""
	}
	return m.Content[0].Text
}

// An 800 KB answer (boundedTextSize) streamed in 4 KB fragments costs
// pi's clients some 165 MB of message_update lines; served over RPC it
// stays within the bound docs/events.md states for each mode, and a client
// that reads pi's format (partials, deltas, message_end) still gets the
// whole message.
func TestRPCEventsBounded(t *testing.T) {
	text := strings.Repeat("0123456789abcdef", boundedTextSize/16)
	for _, tc := range []struct {
		name string
		opts eventwire.Options
	}{
		{"default", eventwire.Options{}},
		{"small floor", eventwire.Options{Floor: 64 << 10, Ratio: 3}},
		{"deltas", eventwire.Options{Mode: eventwire.ModeDeltas, Floor: 64 << 10, Ratio: 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := scripted.New(&scripted.Script{ChunkTokens: 1024, Turns: []scripted.Turn{{Content: host.Contents{host.TextContent{Text: text}}}}})
			lines := serveLines(t, m, rpc.Options{Events: tc.opts}, `{"id":"p","type":"prompt","message":"go"}`+"\n")
			floor, ratio := tc.opts.Floor, tc.opts.Ratio
			if floor == 0 {
				floor, ratio = eventwire.DefaultFloor, eventwire.DefaultRatio
			}
			var updates, all, final int64
			var deltas strings.Builder
			var ended, responded bool
			for _, line := range lines {
				all += int64(len(line) + 1)
				var e wireUpdate
				if err := json.Unmarshal(line, &e); err != nil {
					t.Fatalf("not JSON: %.80q", line)
				}
				if e.Type == "response" {
					responded = true
				}
				if e.Message == nil || e.Message.Role != "assistant" {
					continue
				}
				switch e.Type {
				case "message_update":
					updates += int64(len(line) + 1)
					if e.Event.Type == "text_delta" {
						deltas.WriteString(e.Event.Delta)
					}
					if !strings.HasPrefix(text, e.Message.text()) || e.Event.Partial.text() != e.Message.text() {
						t.Fatalf("an update's message is not a state the message went through (%d bytes)", len(e.Message.text()))
					}
				case "message_end":
					if e.Message.text() != text {
						t.Fatalf("message_end carries %d bytes of text, want %d", len(e.Message.text()), len(text))
					}
					ended = true
					final = int64(len(line) - len(`{"type":"message_end","message":}`))
				}
			}
			if !ended || !responded {
				t.Fatalf("no message_end (%v) or no response (%v)", ended, responded)
			}
			bound := 2 * (floor + ratio*final)
			if tc.opts.Mode == eventwire.ModeDeltas {
				// updates carry no message: count them all, from any line
				updates = 0
				for _, line := range lines {
					if strings.HasPrefix(string(line), `{"type":"message_update"`) {
						var e wireUpdate
						json.Unmarshal(line, &e)
						if e.Message != nil {
							t.Fatalf("deltas mode sent a message: %.80q", line)
						}
						updates += int64(len(line) + 1)
						if e.Event.Type == "text_delta" {
							deltas.WriteString(e.Event.Delta)
						}
					}
				}
				bound = floor + (ratio+2)*final + 300
			}
			if deltas.String() != text {
				t.Fatalf("the deltas concatenate to %d bytes, want the %d of the text", deltas.Len(), len(text))
			}
			if updates > bound || all > 2*floor+(2*ratio+6)*final {
				t.Fatalf("wrote %d bytes of updates (bound %d) and %d in all for a message of %d bytes", updates, bound, all, final)
			}
			t.Logf("message %d bytes: updates %d bytes, output %d bytes", final, updates, all)
		})
	}
}

// serveLines serves a session of model m, sends input, and returns the
// output lines up to agent_end.
func serveLines(t *testing.T, m host.Model, o rpc.Options, input string) [][]byte {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	sess := session.New(session.Options{Store: &session.FileStore{Dir: t.TempDir(), NoSync: true}, Agent: host.AgentOptions{Model: m},
		Models: []session.Model{{Info: host.ModelInfo{API: "scripted", Provider: "scripted", ID: "scripted-1"}, Model: m}}})
	defer sess.Close()
	done := make(chan error, 1)
	go func() { done <- rpc.Serve(context.Background(), sess, inR, outW, o); outW.Close() }()
	go inW.Write([]byte(input))
	var lines [][]byte
	r := bufio.NewReaderSize(outR, 1<<20)
	for {
		line, err := r.ReadBytes('\n')
		if err != nil {
			t.Fatalf("output ended before agent_end: %v", err)
		}
		line = line[:len(line)-1]
		lines = append(lines, line)
		if strings.HasPrefix(string(line), `{"type":"agent_end"`) {
			break
		}
	}
	inW.Close()
	go io.Copy(io.Discard, outR)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	return lines
}
