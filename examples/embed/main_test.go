package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/wasmagent/wasmagent/internal/wasmbuild"
)

func TestEmbed(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the calc plugin")
	}
	var out bytes.Buffer
	if err := run(context.Background(), wasmbuild.ForTest(t, "plugins/calc"), &out); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	for _, want := range []string{"tool calc: 525600\n", "tool clock: 21:00 JST\n", "assistant: A year has 525600 minutes"} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
}

// Run from elsewhere than the repository's root, the default plugin path
// finds nothing: the error says where to run it from and the flag.
func TestEmbedWithoutThePlugin(t *testing.T) {
	err := run(context.Background(), "plugins/calc/none.wasm", &bytes.Buffer{})
	if err == nil || !strings.Contains(err.Error(), "run from the repository's root after make plugins, or name the file with -calc PATH") {
		t.Fatalf("err = %v", err)
	}
}
