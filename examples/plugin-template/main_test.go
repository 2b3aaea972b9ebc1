package main

import (
	"testing"

	"github.com/wasmagent/wasmagent/internal/plugintest"
	"github.com/wasmagent/wasmagent/runtime"
	"github.com/wasmagent/wasmagent/sdk/sdktest"
)

// Runs natively, with the same JSON in and out as in the host, and the
// arguments validated against the schema as the host would.
func TestWordcount(t *testing.T) {
	var h sdktest.Host
	r, err := h.Execute("wordcount", map[string]any{"text": "two words\nand three more\n"})
	if err != nil {
		t.Fatal(err)
	}
	if got := r.Content[0].Text; got != "2 lines, 5 words, 25 characters" {
		t.Fatalf("got %q", got)
	}
	if _, err := h.Execute("wordcount", map[string]any{}); err == nil {
		t.Fatal("a call without text was accepted")
	}
}

// The same plugin, built for wasip1, in the real host.
func TestInTheHost(t *testing.T) {
	p := plugintest.Load(t, "examples/plugin-template", runtime.Grants{})
	r, err := plugintest.Execute(t, p, "wordcount", `{"text":"hello wasm world"}`)
	if err != nil || r.Content.TextOf() != "1 lines, 3 words, 16 characters" {
		t.Fatalf("%v %v", r, err)
	}
}
