package e2e_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/wasmagent/wasmagent/internal/wasmbuild"
)

// The plugin template works from a copy in an empty directory outside this
// repository, exactly as its README says: copy the Go files, write the
// go.mod the README shows (its /path/to/wasmagent made this checkout),
// go mod tidy, go test, build for wasip1, and plugin call through the
// wasmagent command. Offline: modules come from the local module cache.
func TestPluginTemplateFromACopy(t *testing.T) {
	// Child processes: it waits on them, beside the others (RATIONALE.md,
	// "Why is make test shaped this way?").
	t.Parallel()
	if testing.Short() {
		t.Skip("builds a plugin and the wasmagent command")
	}
	root, err := wasmbuild.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	tpl := filepath.Join(root, "examples", "plugin-template")
	readme, err := os.ReadFile(filepath.Join(tpl, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?s)```go.mod\n(.*?)```").FindSubmatch(readme)
	if m == nil {
		t.Fatal("the template's README shows no go.mod block")
	}
	dir := filepath.Join(t.TempDir(), "wordcount")
	os.Mkdir(dir, 0o755)
	gofiles, _ := filepath.Glob(filepath.Join(tpl, "*.go"))
	for _, f := range gofiles {
		b, _ := os.ReadFile(f)
		os.WriteFile(filepath.Join(dir, filepath.Base(f)), b, 0o644)
	}
	gomod := strings.ReplaceAll(string(m[1]), "/path/to/wasmagent", strconv.Quote(root)) // quoted: go.mod takes any path so
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte(gomod), 0o644); err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off", "GOWORK=off", "GOSUMDB=off")
	run := func(dir string, extra []string, args ...string) string {
		t.Helper()
		out, err := runGo(dir, append(append([]string(nil), env...), extra...), args...)
		if err != nil {
			t.Fatalf("go %s (in %s): %v\n%s", strings.Join(args, " "), dir, err, out)
		}
		return out
	}
	// Offline, from the module cache: make test fetched what tidy reads
	// (make test-modules).
	if out, err := runGo(dir, env, "mod", "tidy"); err != nil {
		hint := ""
		if strings.Contains(out, "GOPROXY=off") {
			hint = "\nthe module cache lacks a module go mod tidy reads; make test-modules fetches them (make test runs it)"
		}
		t.Fatalf("go mod tidy (in %s): %v\n%s%s", dir, err, out, hint)
	}
	run(dir, nil, "test", "-count=1", "./...")
	// The build line of the README, as it is written there.
	build := []string{"build", "-trimpath", "-buildmode=c-shared", "-o", "wordcount.wasm", "."}
	if line := "GOOS=wasip1 GOARCH=wasm go " + strings.Join(build, " "); !strings.Contains(string(readme), line) {
		t.Fatalf("the template's README does not build with %q", line)
	}
	run(dir, []string{"GOOS=wasip1", "GOARCH=wasm"}, build...)
	bin := wasmbuild.CommandForTest(t, "cmd/wasmagent")
	cmd := exec.Command(bin, "plugin", "call", filepath.Join(dir, "wordcount.wasm"), "wordcount", `{"text":"hello wasm world"}`)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "1 line, 3 words, 16 characters") {
		t.Fatalf("plugin call: %v\n%s", err, out)
	}
	tryInARun(t, string(readme), dir, bin)
	// docs/abi.md's Extism plugin on go-pdk alone, built in the same module
	// (go-pdk is already in its graph) and called as the page says.
	abi, err := os.ReadFile(filepath.Join(root, "docs", "abi.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, extism, _ := strings.Cut(string(abi), "## From an Extism plugin")
	src := regexp.MustCompile("(?s)```go\n(.*?)```").FindStringSubmatch(extism)
	if src == nil {
		t.Fatal(`docs/abi.md's "From an Extism plugin" shows no Go program`)
	}
	vowels := filepath.Join(dir, "vowels")
	os.Mkdir(vowels, 0o755)
	if err := os.WriteFile(filepath.Join(vowels, "main.go"), []byte(src[1]), 0o644); err != nil {
		t.Fatal(err)
	}
	build[len(build)-2] = "vowels.wasm"
	if line := "GOOS=wasip1 GOARCH=wasm go " + strings.Join(build, " "); !strings.Contains(extism, line) {
		t.Fatalf("docs/abi.md's Extism plugin does not build with %q", line)
	}
	run(vowels, []string{"GOOS=wasip1", "GOARCH=wasm"}, build...)
	out, err = exec.Command(bin, "plugin", "call", filepath.Join(vowels, "vowels.wasm"), "count_vowels", `{"text":"hello world"}`).CombinedOutput()
	if err != nil || !strings.Contains(string(out), `"text": "3 vowels"`) {
		t.Fatalf("docs/abi.md's Extism plugin: plugin call: %v\n%s", err, out)
	}
	// The copy never looked inside the repository's internal packages.
	if b, _ := os.ReadFile(filepath.Join(dir, "main_test.go")); strings.Contains(string(b), "/internal/") {
		t.Fatal("the template's test imports an internal package")
	}
}

// tryInARun follows the README's "Try it in a run, without a model": its
// agent.toml and script.json, written beside the plugin, and its run
// command, as written there, through the wasmagent command from another
// directory.
func tryInARun(t *testing.T, readme, dir, bin string) {
	t.Helper()
	_, section, ok := strings.Cut(readme, "### Try it in a run, without a model")
	if !ok {
		t.Fatal(`the template's README has no "Try it in a run, without a model"`)
	}
	for lang, name := range map[string]string{"toml": "agent.toml", "json": "script.json"} {
		m := regexp.MustCompile("(?s)```" + lang + "\n(.*?)```").FindStringSubmatch(section)
		if m == nil {
			t.Fatalf("the README's run section shows no %s block (%s)", lang, name)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(m[1]), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	const line = `go run -C /path/to/wasmagent ./cmd/wasmagent run --config "$PWD/agent.toml" --no-session 'How many words?'`
	if !strings.Contains(section, line) {
		t.Fatalf("the README's run section does not run %q", line)
	}
	cmd := exec.Command(bin, "run", "--config", filepath.Join(dir, "agent.toml"), "--no-session", "How many words?")
	cmd.Dir = t.TempDir() // -C: the configuration's paths are from its own directory
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("wasmagent run: %v\n%s%s", err, stdout.String(), stderr.String())
	}
	if stdout.String() != "Three words.\n" || !strings.Contains(stderr.String(), "✓ wordcount") ||
		!strings.Contains(stderr.String(), "1 line, 3 words, 16 characters") {
		t.Fatalf("wasmagent run, as the README says it prints:\nstdout %q\nstderr %s", stdout.String(), stderr.String())
	}
}

func runGo(dir string, env []string, args ...string) (string, error) {
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	return string(out), err
}
