package cli_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/wasmagent/wasmagent/internal/cli"
)

// wasmagent rpc writes the agent's events as agent.toml's [events] says:
// in "deltas" mode no message_update carries the message, the deltas
// make up the answer, and message_end carries it whole.
func TestRPCUsesEventsConfig(t *testing.T) {
	answer := strings.Repeat("abcdefgh", 8<<10) // 64 KB in 1 KB fragments
	cfg := scriptedConfig(t, fmt.Sprintf(`{"chunkTokens":256,"turns":[{"content":%q}]}`, answer))
	f, err := os.OpenFile(cfg, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprint(f, "[events]\nupdates = \"deltas\"\nfloor = \"16KiB\"\n")
	f.Close()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	var errOut lockedBuffer
	done := make(chan int, 1)
	go func() {
		done <- cli.Main(context.Background(), []string{"rpc", "--no-session", "--config", cfg}, cli.Env{Stdin: inR, Stdout: outW, Stderr: &errOut})
		outW.Close()
	}()
	go io.WriteString(inW, `{"id":"1","type":"prompt","message":"go"}`+"\n")
	var deltas strings.Builder
	var updates int
	var final string
	sc := bufio.NewScanner(outR)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var e struct {
			Type    string          `json:"type"`
			Message json.RawMessage `json:"message"`
			Event   struct {
				Type  string `json:"type"`
				Delta string `json:"delta"`
			} `json:"assistantMessageEvent"`
		}
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("not JSON: %.80q", sc.Text())
		}
		switch e.Type {
		case "message_update":
			updates++
			if e.Message != nil {
				t.Fatalf("a message_update carries the message in deltas mode: %.120s", sc.Text())
			}
			if e.Event.Type == "text_delta" {
				deltas.WriteString(e.Event.Delta)
			}
		case "message_end":
			var m struct {
				Role    string `json:"role"`
				Content []struct {
					Text string `json:"text"`
				} `json:"content"`
			}
			json.Unmarshal(e.Message, &m)
			if m.Role == "assistant" && len(m.Content) > 0 {
				final = m.Content[0].Text
			}
		case "agent_end":
			inW.Close()
		}
	}
	if code := <-done; code != cli.ExitOK {
		t.Fatalf("exit %d\n%s", code, errOut.String())
	}
	if updates == 0 || deltas.String() != answer || final != answer {
		t.Fatalf("%d updates; deltas make %d bytes, message_end %d, want %d\n%s", updates, deltas.Len(), len(final), len(answer), errOut.String())
	}
}
