package openai_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/wasmagent/wasmagent/host"
	"github.com/wasmagent/wasmagent/host/config"
	"github.com/wasmagent/wasmagent/internal/configtest"
	"github.com/wasmagent/wasmagent/internal/wasmbuild"
)

// With HoldLoads, the background loads of cached plugins start when the
// first model request is written: the model server, holding its answer,
// sees the plugin load and describe itself meanwhile (nothing else can
// open the hold while the agent waits for the model). The model's
// ModelInfo stays visible through the hold.
func TestWireHoldLoadsUntilTheRequest(t *testing.T) {
	var setup atomic.Pointer[config.Setup] // the held one, read by the server
	loaded := make(chan error, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rt := setup.Load().Runtime
		deadline := time.Now().Add(30 * time.Second)
		for rt.Stats().MaxRunning == 0 && time.Now().Before(deadline) {
			time.Sleep(time.Millisecond)
		}
		if rt.Stats().MaxRunning == 0 {
			loaded <- fmt.Errorf("no plugin loaded while the first request waited for its answer")
		} else {
			loaded <- nil
		}
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, `data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":"done"},"finish_reason":"stop"}]}`+"\n\ndata: [DONE]\n\n")
	}))
	defer srv.Close()
	dir := t.TempDir()
	path := filepath.Join(dir, "agent.toml")
	os.WriteFile(path, []byte(fmt.Sprintf(`[model]
provider = "openai"
name = "m"
base_url = %q
api_key_env = "WA_TEST_NO_KEY"
retries = 0

[[tool]]
plugin = %q

[runtime]
cache_dir = %q
`, srv.URL+"/v1", wasmbuild.ForTest(t, "plugins/calc"), wasmbuild.TestCacheDir())), 0o644)
	// The describe cache, under the shared compilation cache, holds calc's
	// entry after one foreground wiring.
	for _, hold := range []bool{false, true} {
		f, err := config.Load(path)
		if err != nil {
			t.Fatal(err)
		}
		configtest.NoPools(f)
		s, err := f.Wire(context.Background(), config.WireOptions{Background: hold, HoldLoads: hold})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		setup.Store(s)
	}
	s := setup.Load()
	// Held, not loaded: calc's load waits for the request (without the
	// hold it would have started at Wire).
	for deadline := time.Now().Add(30 * time.Second); s.HeldLoads() == 0 && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
	}
	if n := s.HeldLoads(); n != 1 {
		t.Fatalf("%d loads held before the first request, want 1", n)
	}
	if n := s.Runtime.Stats().MaxRunning; n != 0 {
		t.Fatalf("%d calls ran before the first request was written, want none (the load is held)", n)
	}
	if d, ok := s.Options.Model.(host.ModelDescriber); !ok || d.ModelInfo().ID != "m" {
		t.Fatalf("the held model hides its ModelInfo (%T)", s.Options.Model)
	}
	a := host.NewAgent(s.Options)
	if err := a.PromptText(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	if err := <-loaded; err != nil {
		t.Fatal(err)
	}
	if err := s.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
}
