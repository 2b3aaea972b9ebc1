//go:build linux

package main_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmagent/wasmagent/internal/wasmbuild"
)

// On a terminal, a hook's question shows above the prompt, the prompt
// says allow?, and the line typed answers it: "a" runs the call and the
// next call of the tool without asking; the prompt goes back to idle.
func TestChatTerminalAsk(t *testing.T) {
	dir := t.TempDir()
	tool, hook := filepath.Join(dir, "tool.wasm"), filepath.Join(dir, "asker.wasm")
	os.WriteFile(tool, wasmbuild.ConstPlugin(map[string]string{
		"describe": `{"abi":1,"name":"tool","tools":[{"name":"echo","description":"e","parameters":{"type":"object"}}]}`,
		"execute":  `{"content":[{"type":"text","text":"echoed"}]}`,
	}), 0o644)
	os.WriteFile(hook, wasmbuild.ConstPlugin(map[string]string{
		"describe":         `{"abi":1,"name":"asker","hooks":["beforeToolCall"]}`,
		"before_tool_call": `{"ask":"Run echo?"}`,
	}), 0o644)
	c := startChatWith(t, `{"turns":[
		{"content":[{"type":"toolCall","id":"c1","name":"echo","arguments":{"x":"1"}}]},
		{"content":"first done"},
		{"content":[{"type":"toolCall","id":"c2","name":"echo","arguments":{"x":"2"}}]},
		{"content":"second done"}]}`,
		fmt.Sprintf("[[tool]]\nplugin = %q\n[[hook]]\nplugin = %q\n", tool, hook))
	c.waitPrompt("")
	c.keys("go\r")
	c.waitText("asker asks: Run echo?")
	c.waitFor("the allow? prompt", func(string) bool { return c.vt.cursorLine() == "allow? [y/n/a] ›" })
	c.keys("a")
	c.waitFor("the typed answer", func(string) bool { return c.vt.cursorLine() == "allow? [y/n/a] › a" })
	c.keys("\r")
	c.waitText("first done")
	c.waitPrompt("")
	c.keys("again\r")
	c.waitText("second done")
	c.waitText("approved (always for echo)")
	c.waitPrompt("")
	sc := c.vt.screen()
	if got := rows(sc, "✓ echo"); len(got) != 2 {
		t.Fatalf("echo ran %d times:\n%s", len(got), sc)
	}
	if got := rows(sc, "allow? [y]es"); len(got) != 1 || strings.Contains(sc, "(steering)") {
		t.Fatalf("asked %d times, or the answer steered:\n%s", len(got), sc)
	}
	c.keys("\x04")
	if code := c.exit(); code != 0 {
		t.Fatalf("exit %d:\n%s", code, sc)
	}
}
