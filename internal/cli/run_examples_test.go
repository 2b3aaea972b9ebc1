package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/wasmagent/wasmagent/internal/wasmbuild"
)

// runInvocation is "wasmagent run" and what follows it on a line, up to
// the end of a code span, a "  (comment)" or the line's end.
var runInvocation = regexp.MustCompile("wasmagent run([^`\n]*)")

// Every example of run that feeds it stdin (a pipe into it, or a < redirect)
// — in run --help, the README and docs/ — sends stdin's content to the
// model: an example whose prompt leaves the pipe unread teaches the one
// form that does not work.
func TestRunExamplesReadTheirStdin(t *testing.T) {
	var help strings.Builder
	runCmd(t.Context(), []string{"--help"}, Env{Stdout: &help, Stderr: &help})
	texts := map[string]string{"run --help": help.String()}
	root, err := wasmbuild.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	docs, _ := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	for _, p := range append(docs, filepath.Join(root, "README.md")) {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		texts[filepath.Base(p)] = string(b)
	}
	checked := 0
	for name, text := range texts {
		for _, line := range strings.Split(text, "\n") {
			for _, m := range runInvocation.FindAllStringSubmatchIndex(line, -1) {
				piped := strings.HasSuffix(strings.TrimRight(line[:m[0]], " "), "|")
				rest := line[m[2]:m[3]]
				if i := strings.Index(rest, "  ("); i >= 0 {
					rest = rest[:i]
				}
				redirected := false
				if i := strings.Index(rest, " < "); i >= 0 {
					rest, redirected = rest[:i], true
				}
				if !piped && !redirected {
					continue
				}
				args, ok := shellWords(rest)
				if !ok {
					t.Errorf("%s: cannot read the arguments of %q", name, line)
					continue
				}
				checked++
				env := Env{Stdin: strings.NewReader("THE PIPED TEXT\n")}
				prompt, err := readPrompt(args, env)
				if err != nil || !strings.Contains(prompt, "THE PIPED TEXT") {
					t.Errorf("%s: %q does not send stdin (prompt %q, %v): an argument - is stdin's place", name, strings.TrimSpace(line), prompt, err)
				}
			}
		}
	}
	if checked < 3 {
		t.Fatalf("only %d examples found", checked)
	}
}

// shellWords splits s as a shell would for plain words and '…' or "…"
// quoted ones; ok is false for anything else (a $, a backslash).
func shellWords(s string) (words []string, ok bool) {
	var w strings.Builder
	in, quote := false, rune(0)
	for _, r := range s {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			w.WriteRune(r)
		case r == '\'' || r == '"':
			quote, in = r, true
		case r == ' ' || r == '\t':
			if in {
				words, in = append(words, w.String()), false
				w.Reset()
			}
		case r == '$' || r == '\\' || r == '`':
			return nil, false
		default:
			w.WriteRune(r)
			in = true
		}
	}
	if quote != 0 {
		return nil, false
	}
	if in {
		words = append(words, w.String())
	}
	return words, true
}
