package main

import (
	"strings"
	"testing"

	"github.com/wasmagent/wasmagent/internal/plugintest"
	"github.com/wasmagent/wasmagent/runtime"
)

// The plugin built for wasip1 and run by the real host gives the same
// results as natively.
func TestThroughTheHost(t *testing.T) {
	p := plugintest.Load(t, "plugins/calc", runtime.Grants{})
	if tools := p.Tools(); len(tools) != 1 || tools[0].Info().Label != "Calculator" {
		t.Fatalf("tools = %+v", tools)
	}
	r, err := plugintest.Execute(t, p, "calc", `{"expression":"2^64 / 3"}`)
	if err != nil {
		t.Fatal(err)
	}
	if got := r.Content.TextOf(); got != "6148914691236517205.333333333333333333333333333333 (exactly 18446744073709551616/3)" {
		t.Fatalf("got %q", got)
	}
	if _, err := plugintest.Execute(t, p, "calc", `{"expression":"1/(2-2)"}`); err == nil || !strings.Contains(err.Error(), "division by zero") {
		t.Fatalf("err = %v", err)
	}
}
