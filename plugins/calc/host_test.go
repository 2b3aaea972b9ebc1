package main

import (
	"context"
	"strings"
	"testing"

	"github.com/wasmagent/wasmagent/host/wasmtool"
	"github.com/wasmagent/wasmagent/internal/wasmbuild"
	"github.com/wasmagent/wasmagent/runtime"
)

// The plugin built for wasip1 and run by the real host gives the same
// results as natively.
func TestThroughTheHost(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the plugin")
	}
	ctx := context.Background()
	rt, err := runtime.New(ctx, runtime.Options{CacheDir: wasmbuild.TestCacheDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close(ctx)
	p, err := wasmtool.Load(ctx, rt, wasmbuild.ForTest(t, "plugins/calc"), wasmtool.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	tools := p.Tools()
	if len(tools) != 1 || tools[0].Info().Name != "calc" || tools[0].Info().Label != "Calculator" {
		t.Fatalf("tools = %+v", tools)
	}
	r, err := tools[0].Execute(ctx, "c1", []byte(`{"expression":"2^64 / 3"}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := r.Content.TextOf(); got != "6148914691236517205.333333333333333333333333333333 (exactly 18446744073709551616/3)" {
		t.Fatalf("got %q", got)
	}
	if _, err := tools[0].Execute(ctx, "c2", []byte(`{"expression":"1/(2-2)"}`), nil); err == nil || !strings.Contains(err.Error(), "division by zero") {
		t.Fatalf("err = %v", err)
	}
}
