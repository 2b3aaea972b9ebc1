package cli

import (
	"regexp"
	"slices"
	"strings"
	"testing"
)

// A flag of pi or Claude Code typed by habit (-p, --model, --resume) is
// answered, on every command that has no such flag and none close to it,
// with what wasmagent has instead; before the command too. A prompt given
// where the command goes (as pi and claude take one) is shown as a run.
func TestOtherAgentsFlags(t *testing.T) {
	leaves, _ := commandPaths(rootGroup, nil)
	flagLine := regexp.MustCompile(`(?m)^  --([A-Za-z0-9-]+)(?:, -([a-z]))?`)
	checked := 0
	for _, path := range leaves {
		help, _, _ := runMain(append(append([]string{}, path...), "--help")...)
		var names []string
		for _, m := range flagLine.FindAllStringSubmatch(help, -1) {
			names = append(names, m[1])
			if m[2] != "" {
				names = append(names, m[2]) // -c, listed with --continue
			}
		}
		for name, say := range agentFlags {
			if slices.Contains(names, name) {
				continue
			}
			args := append(append([]string{}, path...), flagName(name), "x")
			out, errOut, code := runMain(args...)
			if code != ExitUsage || out != "" {
				t.Errorf("%q: exit %d, stdout %q", args, code, out)
				continue
			}
			if !strings.Contains(errOut, "unknown flag "+flagName(name)) {
				t.Errorf("%q: the flag is not named as written:\n%s", args, errOut)
			}
			switch {
			case strings.Contains(errOut, "(did you mean --"):
				// A flag of the command's own is closer.
			case name == "c" && !slices.Contains(names, "continue"):
				if strings.Contains(errOut, say) {
					t.Errorf("%q: advises --continue, which this command has not:\n%s", args, errOut)
				}
			default:
				checked++
				if !strings.Contains(errOut, say) {
					t.Errorf("%q: does not say %q:\n%s", args, say, errOut)
				}
			}
		}
	}
	if checked < 150 {
		t.Fatalf("only %d flags checked", checked)
	}
	for _, args := range [][]string{{"--model", "gpt-4o", "run", "hi"}, {"--resume"}} {
		if _, errOut, code := runMain(args...); code != ExitUsage || !strings.Contains(errOut, agentFlags[strings.TrimLeft(args[0], "-")]) {
			t.Errorf("%q: exit %d:\n%s", args, code, errOut)
		}
	}
	for _, prompt := range []string{"what is in here?", "fix the failing test", "summarise-the-readme-for-me-please"} {
		_, errOut, code := runMain(prompt)
		if code != ExitUsage || !strings.Contains(errOut, "(wasmagent run "+shellQuote(prompt)+")") {
			t.Errorf("%q as the command: exit %d:\n%s", prompt, code, errOut)
		}
	}
}
