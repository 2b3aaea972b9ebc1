package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// tools/list shows each tool by its configured name, with description,
// input schema and the annotations the plugin declared (none claimed by
// the tools that declare none).
func TestListTools(t *testing.T) {
	cs := connect(t, wire(t, "").server(t), nil)
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	tools := map[string]*sdk.Tool{}
	for _, tool := range res.Tools {
		tools[tool.Name] = tool
	}
	if tools["echo"] != nil || tools["say"] == nil {
		t.Fatalf("echo is renamed say in agent.toml; listed: %v", keys(tools))
	}
	say := tools["say"]
	schema, _ := json.Marshal(say.InputSchema)
	if say.Description != "Returns its text." || !strings.Contains(string(schema), `"text"`) {
		t.Fatalf("say = %q, schema %s", say.Description, schema)
	}
	if a := say.Annotations; a == nil || !a.ReadOnlyHint || a.OpenWorldHint == nil || *a.OpenWorldHint || a.DestructiveHint != nil {
		t.Fatalf("say's annotations = %+v, want readOnly, not open-world, nothing on destructive", a)
	}
	if a := tools["write"].Annotations; a == nil || a.DestructiveHint == nil || !*a.DestructiveHint || a.ReadOnlyHint {
		t.Fatalf("write's annotations = %+v, want destructive", a)
	}
	if a := tools["sleep"].Annotations; a != nil {
		t.Fatalf("sleep declares nothing, yet lists %+v", a)
	}
}

// A call goes through the hooks as in the loop: the after hooks modify
// the result (policy appends, redact replaces the secret), a failing
// before hook blocks with its reason, and each call gets the loop's audit
// record.
func TestCallThroughHooks(t *testing.T) {
	w := wire(t, "")
	cs := connect(t, w.server(t), nil)
	res := call(t, cs, "say", map[string]any{"text": "key AKIAIOSFODNN7EXAMPLE"})
	if res.IsError || strings.Contains(text(res), "AKIAIOSFODNN7EXAMPLE") || !strings.Contains(text(res), "[REDACTED:") || !strings.Contains(text(res), "(seen by probe)") {
		t.Fatalf("result = %q (isError %v), want redacted and seen by probe", text(res), res.IsError)
	}
	res = call(t, cs, "say", map[string]any{"text": "hook:fail"})
	if !res.IsError || !strings.Contains(text(res), "probe hook failed on say") {
		t.Fatalf("blocked call = %q (isError %v)", text(res), res.IsError)
	}
	var recs []map[string]any
	waitFor(t, "two audit records", func() bool {
		b, _ := os.ReadFile(w.audit)
		recs = nil
		for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			var r map[string]any
			if json.Unmarshal([]byte(line), &r) == nil {
				recs = append(recs, r)
			}
		}
		return len(recs) == 2
	})
	if recs[0]["tool"] != "say" || recs[0]["outcome"] != "ok" || !strings.HasPrefix(recs[0]["plugin"].(string), "probe") || len(recs[0]["hooks"].([]any)) != 3 {
		t.Fatalf("first record = %v", recs[0])
	}
	if recs[1]["outcome"] != "error" || !strings.Contains(recs[1]["hooks"].([]any)[0].(map[string]any)["reason"].(string), "probe hook failed") {
		t.Fatalf("second record = %v", recs[1])
	}
}

// Bad calls get an error, never an end of the session: an unknown tool
// (a JSON-RPC error), arguments that fail validation and arguments over
// the size bound (error results). The session still serves afterwards.
func TestBadCalls(t *testing.T) {
	w := wire(t, "")
	cs := connect(t, w.server(t), nil)
	if _, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "nope", Arguments: map[string]any{}}); err == nil || !strings.Contains(err.Error(), "nope") {
		t.Fatalf("unknown tool: err = %v", err)
	}
	if res := call(t, cs, "say", map[string]any{"text": 3, "extra": true}); !res.IsError || !strings.Contains(text(res), "Validation failed") {
		t.Fatalf("invalid arguments: %q", text(res))
	}
	if res := call(t, cs, "say", map[string]any{"text": strings.Repeat("x", 2<<20)}); !res.IsError || !strings.Contains(text(res), "over this server's limit") {
		t.Fatalf("oversize arguments: %q", text(res)[:min(200, len(text(res)))])
	}
	if res := call(t, cs, "say", map[string]any{"text": "still here"}); res.IsError || !strings.HasPrefix(text(res), "still here") {
		t.Fatalf("after bad calls: %q", text(res))
	}
	waitFor(t, "audit records of the refused calls", func() bool {
		b, _ := os.ReadFile(w.audit)
		return strings.Count(string(b), `"outcome":"error"`) == 2 && strings.Count(string(b), `"outcome":"ok"`) == 1
	})
}

// A plugin's partial results reach a client that sent a progress token,
// in order and before the result.
func TestProgress(t *testing.T) {
	var mu sync.Mutex
	var got []string
	cs := connect(t, wire(t, "").server(t), &sdk.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, r *sdk.ProgressNotificationClientRequest) {
			mu.Lock()
			got = append(got, r.Params.Message)
			mu.Unlock()
		},
	})
	p := &sdk.CallToolParams{Name: "updates", Arguments: map[string]any{"n": 3}}
	p.SetProgressToken("tok")
	res, err := cs.CallTool(context.Background(), p)
	if err != nil || res.IsError {
		t.Fatalf("err %v, result %q", err, text(res))
	}
	// The Go SDK client runs notification handlers on a goroutine of
	// their own and may return the result first: wait for them.
	progress := func() string {
		mu.Lock()
		defer mu.Unlock()
		return strings.Join(got, ",")
	}
	waitFor(t, "three progress notifications", func() bool { return strings.Count(progress(), "step") >= 3 })
	if progress() != "step 1,step 2,step 3" {
		t.Fatalf("progress = %q", progress())
	}
}

// Cancelling a call (notifications/cancelled) aborts the running plugin:
// a tool that never returns ends, its audit record says so, and the
// session goes on.
func TestCancel(t *testing.T) {
	w := wire(t, "")
	cs := connect(t, w.server(t), nil)
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		time.Sleep(300 * time.Millisecond)
		cancel()
	}()
	_, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "spin", Arguments: map[string]any{}})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want cancelled", err)
	}
	waitFor(t, "the spin's audit record", func() bool {
		b, _ := os.ReadFile(w.audit)
		return strings.Contains(string(b), `"tool":"spin"`) && strings.Contains(string(b), `"outcome":"error"`)
	})
	if res := call(t, cs, "say", map[string]any{"text": "after"}); res.IsError {
		t.Fatalf("after cancel: %q", text(res))
	}
}

func keys[V any](m map[string]V) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	return ks
}
