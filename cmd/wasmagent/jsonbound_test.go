package main_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmagent/wasmagent/host/eventwire"
	"github.com/wasmagent/wasmagent/host/openai/openaitest"
)

// `run --json` with an 8 MB tool argument (bigArgumentLen; under -race
// smaller, over a smaller [events] floor) streamed in 4 KB fragments: what the binary writes stays within the bound
// docs/events.md states (the message's updates within 2 × (floor + ratio
// × the message), the whole output within 2 × floor + (2 × ratio + 6) ×
// the message), every message_update carries a state the message went
// through, and message_end the whole message.
func TestRunJSONBigArgument(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and streams 8 MB")
	}
	args := `{"expression":"` + strings.Repeat("1+", bigArgumentLen/2) + `1"}`
	s := (&openaitest.Stream{}).Call(0, "call_big", "calc")
	for i := 0; i < len(args); i += 4096 {
		s.Args(0, args[i:min(i+4096, len(args))])
	}
	srv := openaitest.Serve(t, s.Finish("tool_calls").Bytes(), (&openaitest.Stream{}).Text("done").Finish("stop").Bytes())
	dir := t.TempDir()
	path := filepath.Join(dir, "agent.toml")
	os.WriteFile(path, []byte(fmt.Sprintf("[model]\nprovider = \"openai\"\nname = \"gpt-test\"\nbase_url = %q\napi_key_env = \"WA_E2E_KEY\"\nretries = 0\n[events]\nfloor = %d\n", srv.URL+"/v1", bigArgumentFloor)), 0o644)
	out, errOut, code := run(t, "run", "--json", "--config", path, "go")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	var updates, final int64
	var lastArgs string
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var e struct {
			Type    string `json:"type"`
			Message struct {
				Role    string `json:"role"`
				Content []struct {
					Arguments json.RawMessage `json:"arguments"`
				} `json:"content"`
			} `json:"message"`
		}
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("not JSON: %v", err)
		}
		if e.Message.Role != "assistant" || len(e.Message.Content) == 0 || final > 0 {
			continue // the first answer is the one under test
		}
		got := string(e.Message.Content[0].Arguments)
		switch e.Type {
		case "message_update":
			updates += int64(len(sc.Bytes()) + 1)
			// As pi-ai's: the value of the prefix streamed so far, an
			// object whose expression is a prefix of the final one.
			var partial struct {
				Expression *string `json:"expression"`
			}
			if err := json.Unmarshal(e.Message.Content[0].Arguments, &partial); err != nil {
				t.Fatalf("an update's arguments are not an object: %.60q (%v)", got, err)
			}
			if partial.Expression != nil && !strings.HasPrefix(args, `{"expression":"`+*partial.Expression) {
				t.Fatalf("an update's expression is not a prefix of the final one: %.60q", *partial.Expression)
			}
			lastArgs = got
		case "message_end":
			if got != args {
				t.Fatalf("message_end's arguments: %d bytes, want %d", len(got), len(args))
			}
			final = int64(len(sc.Bytes()) - len(`{"type":"message_end","message":}`))
		}
	}
	if err := sc.Err(); err != nil || final == 0 || lastArgs == "" {
		t.Fatalf("no whole message (%v)", err)
	}
	floor, ratio := int64(bigArgumentFloor), int64(eventwire.DefaultRatio)
	if updates > 2*(floor+ratio*final) || int64(len(out)) > 2*floor+(2*ratio+6)*final {
		t.Fatalf("wrote %d bytes of updates and %d in all for a message of %d bytes", updates, len(out), final)
	}
	t.Logf("message %d bytes: updates %d bytes, output %d bytes", final, updates, len(out))
}
