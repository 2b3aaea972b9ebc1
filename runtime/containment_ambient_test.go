package runtime_test

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/wasmagent/wasmagent/runtime"
)

type ambient struct {
	Rand string   `json:"rand"`
	Now  int64    `json:"now"`
	Args []string `json:"args"`
	Env  []string `json:"env"`
}

// Nothing of the host's process reaches a plugin: no arguments, no
// environment, and its stdout goes nowhere, even with the variable that
// makes plain Extism print it. Randomness is real and differs per
// instance; the wall clock is the real one only when granted.
func TestNoAmbientAuthority(t *testing.T) {
	t.Setenv("EXTISM_ENABLE_WASI_OUTPUT", "1")
	t.Setenv("WASMAGENT_SECRET_FOR_TEST", "leaked?")
	p := probe(t, runtime.Grants{}, 2)
	clock := probe(t, runtime.Grants{Clock: true}, 0)
	// The host's own stdout and stderr, watched while the plugin prints.
	rOut, wOut, _ := os.Pipe()
	saved, savedErr := os.Stdout, os.Stderr
	os.Stdout, os.Stderr = wOut, wOut
	defer func() { os.Stdout, os.Stderr = saved, savedErr }()
	seen := map[string]bool{}
	for range 3 {
		r, err := execute(context.Background(), p, "ambient", struct{}{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		var a ambient
		if err := json.Unmarshal([]byte(text(r)), &a); err != nil {
			t.Fatal(err)
		}
		if len(a.Env) != 0 || len(a.Args) != 0 {
			t.Fatalf("the plugin sees args %q and environment %q", a.Args, a.Env)
		}
		if seen[a.Rand] || a.Rand == strings.Repeat("0", 32) {
			t.Fatalf("random bytes repeat: %s", a.Rand)
		}
		seen[a.Rand] = true
		if y := time.Unix(a.Now, 0).UTC().Year(); y != 2022 {
			t.Fatalf("without a clock grant the plugin's wall clock says %d", y)
		}
	}
	r, err := execute(context.Background(), clock, "ambient", struct{}{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var a ambient
	json.Unmarshal([]byte(text(r)), &a)
	if d := time.Since(time.Unix(a.Now, 0)); d < -time.Minute || d > time.Minute {
		t.Fatalf("with the clock granted, the plugin's clock is off by %v", d)
	}
	os.Stdout, os.Stderr = saved, savedErr
	wOut.Close()
	printed, _ := io.ReadAll(rOut)
	if strings.Contains(string(printed), "plugin std") {
		t.Fatalf("plugin output reached the host's stdout or stderr: %q", printed)
	}
}

// Partial updates are capped in size (the output limit) like the output.
func TestUpdateOverLimit(t *testing.T) {
	p := probe(t, runtime.Grants{MaxOutputBytes: 16}, 0)
	opts := &runtime.CallOptions{OnUpdate: func([]byte) error { return nil }}
	_, err := execute(context.Background(), p, "updates", map[string]any{"n": 1}, opts)
	if err == nil || !strings.Contains(err.Error(), "emit_update: an update of") {
		t.Fatalf("err = %v", err)
	}
}
