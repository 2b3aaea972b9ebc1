package cli_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
)

// A run that [agent] max_turns ends before the model has answered (its
// last message a tool result) says so on stderr, with the key, its file
// and what to do, in plain and --json mode (stdout stays event lines),
// exit 0; a run that ends by itself within the cap says nothing. For caps
// 1 to 3 against runs of 1 to 4 turns. It ended after the tool lines as if
// the model had nothing more to say.
func TestRunSaysMaxTurnsStoppedIt(t *testing.T) {
	chdir(t)
	for turns := 1; turns <= 4; turns++ {
		// turns-1 turns of a tool call, then the answer.
		var script []string
		for i := range turns - 1 {
			script = append(script, fmt.Sprintf(`{"content":[{"type":"toolCall","id":"c%d","name":"nope","arguments":{}}]}`, i))
		}
		script = append(script, `{"content":"the answer"}`)
		for max := 1; max <= 3; max++ {
			cfg := scriptedConfig(t, `{"turns":[`+strings.Join(script, ",")+`]}`)
			b, _ := os.ReadFile(cfg)
			os.WriteFile(cfg, append(b, fmt.Sprintf("[agent]\nmax_turns = %d\n", max)...), 0o644)
			for _, mode := range [][]string{nil, {"--json"}} {
				args := append(append([]string{"run", "--no-session", "--config", cfg}, mode...), "go")
				out, errOut, code := runCLI(t, args...)
				stopped := turns > max
				said := strings.Contains(errOut, fmt.Sprintf("[agent] max_turns = %d in %s", max, cfg))
				if code != 0 || said != stopped {
					t.Errorf("%d turns, max_turns %d, %q: exit %d, said %v:\n%s", turns, max, mode, code, said, errOut)
				}
				if said && !strings.Contains(errOut, "(stopped after "+map[int]string{1: "1 turn", 2: "2 turns", 3: "3 turns"}[max]+":") {
					t.Errorf("%d turns, max_turns %d: %s", turns, max, errOut)
				}
				if mode != nil {
					sc := bufio.NewScanner(strings.NewReader(out))
					for sc.Scan() {
						if !json.Valid(sc.Bytes()) {
							t.Errorf("stdout line is not JSON: %s", sc.Text())
						}
					}
				}
			}
		}
	}
}
