package config_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/wasmagent/wasmagent/host"
	"github.com/wasmagent/wasmagent/host/config"
	"github.com/wasmagent/wasmagent/internal/configtest"
	"github.com/wasmagent/wasmagent/internal/rtshare"
)

// Wired with Background, a configuration whose descriptions are cached
// (by the first wiring) gives the same tools, modes and hooks, in the
// same order, and its calls and hooks run once the plugins are loaded.
func TestWireBackground(t *testing.T) {
	path := write(t, `
[[tool]]
plugin = "CALC"
rename = { calc = "math" }
sequential = ["calc"]

[[tool]]
plugin = "PROBE"
name = "probe"
disable = ["state", "sleep", "hash", "fib", "spin", "panic", "crash", "fail", "big", "updates", "read", "write", "fsop", "ambient", "fetch", "config"]

[[hook]]
plugin = "PROBE"
tools = ["ma*"]
`, toolCall("c1", "math", `{"expression":"6*7"}`), toolCall("c2", "echo", `{"text":"hi"}`), `{"content":"done"}`)
	shape := func(s *config.Setup) string {
		var parts []string
		for _, tool := range s.Tools {
			parts = append(parts, fmt.Sprintf("%s:%s", tool.Name, tool.Mode))
		}
		for _, h := range s.Hooks {
			parts = append(parts, h.Kind)
		}
		return strings.Join(parts, " ")
	}
	var shapes []string
	for range 2 {
		f, err := config.Load(path)
		if err != nil {
			t.Fatal(err)
		}
		configtest.NoPools(f)
		s, err := f.Wire(rtshare.Share(context.Background()), config.WireOptions{Background: true})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(s.Close)
		shapes = append(shapes, shape(s))
		a := host.NewAgent(s.Options)
		if err := a.PromptText(context.Background(), "go"); err != nil {
			t.Fatal(err)
		}
		var results []string
		for _, m := range a.State().Messages {
			if r, ok := m.(*host.ToolResultMessage); ok {
				results = append(results, r.Content.TextOf())
			}
		}
		if fmt.Sprint(results) != "[42 (seen by probe) hi]" {
			t.Fatalf("results = %q", results)
		}
		if err := s.Wait(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	if shapes[0] != "math:sequential echo: beforeToolCall afterToolCall" || shapes[1] != shapes[0] {
		t.Fatalf("shapes = %q", shapes)
	}
}
