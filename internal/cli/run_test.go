package cli_test

import (
	"context"
	"strings"
	"testing"

	"github.com/wasmagent/wasmagent/internal/cli"
)

// run -, or run with no PROMPT and stdin not a terminal, reads the prompt
// from stdin; --json prints it without HTML escapes.
func TestRunPromptFromStdin(t *testing.T) {
	cfg := scriptedConfig(t, `{"turns":[{"content":"a <b> & c"}]}`)
	for _, args := range [][]string{{"run", "--json", "--config", cfg, "-"}, {"run", "--json", "--config", cfg}} {
		var out, errOut lockedBuffer
		code := cli.Main(context.Background(), args, cli.Env{Stdin: strings.NewReader("is x < y && y > z?\n"), Stdout: &out, Stderr: &errOut})
		if code != cli.ExitOK {
			t.Fatalf("%q: exit %d\n%s", args, code, errOut.String())
		}
		got := out.String()
		if !strings.Contains(got, `"content":[{"type":"text","text":"is x < y && y > z?"}]`) || !strings.Contains(got, `"text":"a <b> & c"`) {
			t.Fatalf("%q: the prompt is not the one on stdin, or is escaped:\n%s", args, got)
		}
		if strings.Contains(got, `\u003c`) || strings.Contains(got, `\u0026`) {
			t.Fatalf("HTML escapes in:\n%s", got)
		}
	}
}
