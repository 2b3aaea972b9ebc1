// Package assemblyscript_test runs plugins built with the AssemblyScript
// SDK in the real host: internal/testplugins/asprobe, which uses every
// part of the SDK. The plugins are built with npm and asc; without node
// the tests are skipped, saying why.
package assemblyscript_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/wasmagent/wasmagent/host"
	"github.com/wasmagent/wasmagent/host/wasmtool"
	"github.com/wasmagent/wasmagent/internal/plugintest"
	"github.com/wasmagent/wasmagent/internal/wasmbuild"
	"github.com/wasmagent/wasmagent/runtime"
)

const probe = "internal/testplugins/asprobe"

func load(t *testing.T, g runtime.Grants) *wasmtool.Plugin {
	return plugintest.LoadAS(t, probe, g)
}

func run(t *testing.T, p *wasmtool.Plugin, tool, args string) (host.ToolResult, error) {
	t.Helper()
	return plugintest.Run(t, p, tool, args)
}

func jsonOf(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// The description the host reads is what the plugin registered: tools in
// order with labels, schemas, modes and prepareArguments; hooks; needs.
func TestDescription(t *testing.T) {
	p := load(t, runtime.Grants{})
	d := p.Description()
	var names []string
	for _, tool := range d.Tools {
		names = append(names, tool.Name)
	}
	if got := strings.Join(names, " "); got != "echo config updates image fail iserror terminate abort http log json prepared" {
		t.Fatalf("tools %q", got)
	}
	if d.ABI != 1 || d.Name != "asprobe" || d.Version != "1.2.3" {
		t.Fatalf("description %+v", d)
	}
	echo, updates, prepared := d.Tools[0], d.Tools[2], d.Tools[11]
	if echo.Label != "Echo" || string(echo.Parameters) != `{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}` || echo.ExecutionMode != "" || echo.PrepareArguments {
		t.Fatalf("echo %+v", echo)
	}
	if updates.ExecutionMode != "sequential" || !prepared.PrepareArguments || d.Tools[3].Parameters != nil {
		t.Fatalf("updates %+v, prepared %+v, image %+v", updates, prepared, d.Tools[3])
	}
	if got := strings.Join(d.Hooks, " "); got != "beforeToolCall afterToolCall" {
		t.Fatalf("hooks %q", got)
	}
	want := `{"paths":[{"guest":"/data","write":true,"optional":true,"why":"writes results"}],"hosts":[{"host":"*.example.com","optional":true,"why":"fetches things"}],"config":[{"key":"greeting","optional":true,"why":"what to say"},{"key":"gate","optional":true,"why":"makes the beforeToolCall hook the gate policy"},{"key":"hints","optional":true,"why":"adds the tool hinted, with these annotations"}]}`
	if got := jsonOf(d.Needs); got != want {
		t.Fatalf("needs\n got  %s\n want %s", got, want)
	}
}

// A plugin built with the SDK imports only Extism's kernel functions and
// emit_update: no WASI, nothing of AssemblyScript's own (abort, trace,
// seed).
func TestImportsOnlyTheABI(t *testing.T) {
	for _, dir := range []string{probe, "plugins/text"} {
		m, err := plugintest.Runtime(t).CompileFile(context.Background(), wasmbuild.ASForTest(t, dir))
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range m.Imports() {
			if !strings.HasPrefix(imp, "extism:host/env.") && imp != "extism:host/user.emit_update" {
				t.Errorf("%s imports %s", dir, imp)
			}
		}
	}
}

func TestToolResults(t *testing.T) {
	p := load(t, runtime.Grants{Config: map[string]string{"greeting": "grüß dich 😀"}})
	r, err := run(t, p, "echo", `{"text":"ünï \"q\" \u0001 \ud83d\ude00"}`)
	if err != nil || r.Content.TextOf() != "ünï \"q\" \x01 😀" || jsonOf(r.Details) != `{"text":"ünï \"q\" \u0001 😀"}` {
		t.Fatalf("echo: %+v %v", r, err)
	}
	if r, err := run(t, p, "config", `{"key":"greeting"}`); err != nil || r.Content.TextOf() != "grüß dich 😀" {
		t.Fatalf("config: %+v %v", r, err)
	}
	if r, err := run(t, p, "config", `{"key":"missing"}`); err != nil || r.Content.TextOf() != "(unset)" {
		t.Fatalf("config unset: %+v %v", r, err)
	}
	r, err = run(t, p, "image", `{}`)
	if err != nil || len(r.Content) != 2 {
		t.Fatalf("image: %+v %v", r, err)
	}
	img, ok := r.Content[1].(host.ImageContent)
	data, _ := base64.StdEncoding.DecodeString(img.Data)
	if !ok || img.MimeType != "image/png" || !bytes.Equal(data, []byte{0x89, 'P', 'N', 'G', 0xff}) {
		t.Fatalf("image block %#v", r.Content[1])
	}
	if r, err := run(t, p, "terminate", `{}`); err != nil || r.Terminate == nil || !*r.Terminate || r.Content.TextOf() != "the end" {
		t.Fatalf("terminate: %+v %v", r, err)
	}
	// setTerminate(false) is a value, kept distinct from absent.
	if r, err := run(t, p, "terminate", `{"value":false}`); err != nil || r.Terminate == nil || *r.Terminate {
		t.Fatalf("terminate false: %+v %v", r, err)
	}
	if r, err := run(t, p, "terminate", `{"value":true}`); err != nil || r.Terminate == nil || !*r.Terminate {
		t.Fatalf("terminate true: %+v %v", r, err)
	}
	if r, err := run(t, p, "echo", `{"text":"x"}`); err != nil || r.Terminate != nil {
		t.Fatalf("terminate absent: %+v %v", r, err)
	}
}

// c.fail, an error result and a throw each end the call with an error
// whose text says what happened.
func TestErrors(t *testing.T) {
	p := load(t, runtime.Grants{})
	for _, c := range []struct{ tool, args, want string }{
		{"fail", `{"msg":"the disk is full"}`, "the disk is full"},
		{"iserror", `{}`, "an error result"},
		{"abort", `{}`, "unreachable"},
		{"echo", `{}`, "text"}, // validation, by the host
	} {
		if _, err := run(t, p, c.tool, c.args); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %s: error %v, want one containing %q", c.tool, c.args, err, c.want)
		}
	}
}

func TestUpdates(t *testing.T) {
	p := load(t, runtime.Grants{})
	var mu sync.Mutex
	var got []string
	res, err := plugintest.Tool(t, p, "updates").Execute(context.Background(), "call_1", json.RawMessage(`{"n":3}`), func(partial any) {
		mu.Lock()
		defer mu.Unlock()
		got = append(got, jsonOf(partial))
	})
	if err != nil || res.Content.TextOf() != "done" {
		t.Fatalf("%+v %v", res, err)
	}
	if len(got) != 3 || !strings.Contains(got[2], `"text":"step 3"`) || !strings.Contains(got[2], `"step":3`) {
		t.Fatalf("updates %q", got)
	}
}

// HTTP goes through the host: headers and body out, status, headers and
// the URL after redirects back; a host not granted is refused.
func TestHTTP(t *testing.T) {
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/go" {
			http.Redirect(w, r, "/there", http.StatusFound)
			return
		}
		body := new(bytes.Buffer)
		body.ReadFrom(r.Body)
		w.Header().Set("X-Test", "yes")
		w.WriteHeader(201)
		w.Write([]byte(r.Method + " " + r.URL.Path + " " + r.Header.Get("x-probe") + " " + body.String()))
	}))
	defer s.Close()
	u, _ := url.Parse(s.URL)
	p := load(t, runtime.Grants{Hosts: []string{u.Host}})
	r, err := run(t, p, "http", `{"url":"`+s.URL+`/go"}`)
	if err != nil || r.Content.TextOf() != "GET /there 1 " {
		t.Fatalf("GET: %+v %v", r, err)
	}
	var d struct {
		Status  int
		URL     string
		Headers map[string]string
	}
	json.Unmarshal([]byte(jsonOf(r.Details)), &d)
	if d.Status != 201 || d.URL != s.URL+"/there" || d.Headers["x-test"] != "yes" {
		t.Fatalf("details %+v", d)
	}
	if r, err := run(t, p, "http", `{"url":"`+s.URL+`/post","method":"post","body":"ünï"}`); err != nil || r.Content.TextOf() != "POST /post 1 ünï" {
		t.Fatalf("POST: %+v %v", r, err)
	}
	if _, err := run(t, p, "http", `{"url":"http://example.com/"}`); err == nil || !strings.Contains(err.Error(), "not allowed") {
		t.Fatalf("a host not granted: %v", err)
	}
}

// Log lines reach the host's log at their levels, down to the granted one.
func TestLog(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the plugin in the host")
	}
	var buf bytes.Buffer
	var mu sync.Mutex
	logger := slog.New(slog.NewTextHandler(writerFunc(func(b []byte) (int, error) {
		mu.Lock()
		defer mu.Unlock()
		return buf.Write(b)
	}), &slog.HandlerOptions{Level: slog.LevelDebug - 4}))
	ctx := context.Background()
	rt, err := runtime.New(ctx, runtime.Options{CacheDir: wasmbuild.TestCacheDir(), Logger: logger})
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close(ctx)
	p, err := wasmtool.Load(ctx, rt, wasmbuild.ASForTest(t, probe), wasmtool.Options{Grants: runtime.Grants{LogLevel: "debug"}})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if _, err := run(t, p, "log", `{}`); err != nil {
		t.Fatal(err)
	}
	if _, err := run(t, p, "abort", `{}`); err == nil {
		t.Fatal("abort did not fail the call")
	}
	mu.Lock()
	out := buf.String()
	mu.Unlock()
	for _, want := range []string{"level=ERROR msg=\"the plugin aborted in execute: kaboom (", "level=DEBUG msg=\"debug line\"", "level=INFO msg=\"info line\"", "level=WARN msg=\"warn line\"", "level=ERROR msg=\"error line\""} {
		if !strings.Contains(out, want) {
			t.Errorf("log has no %s:\n%s", want, out)
		}
	}
	if strings.Contains(out, "trace line") {
		t.Errorf("a trace line got past the debug level:\n%s", out)
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(b []byte) (int, error) { return f(b) }

// prepare_arguments rewrites an old shape before validation, and may refuse.
func TestPrepareArguments(t *testing.T) {
	p := load(t, runtime.Grants{})
	if r, err := run(t, p, "prepared", `{"txt":"old"}`); err != nil || r.Content.TextOf() != "old" {
		t.Fatalf("old shape: %+v %v", r, err)
	}
	if r, err := run(t, p, "prepared", `{"text":"new"}`); err != nil || r.Content.TextOf() != "new" {
		t.Fatalf("new shape: %+v %v", r, err)
	}
	if _, err := run(t, p, "prepared", `{"text":"x","bad":1}`); err == nil || !strings.Contains(err.Error(), "bad arguments") {
		t.Fatalf("refused: %v", err)
	}
}

func TestHooks(t *testing.T) {
	p := load(t, runtime.Grants{})
	ctx := context.Background()
	call := func(args string) host.ToolCallContext {
		return host.ToolCallContext{ToolCall: host.ToolCall{ID: "call_7", Name: "write", Arguments: json.RawMessage(args)}, Args: json.RawMessage(args)}
	}
	c := call(`{"block":true}`)
	if r, err := p.BeforeToolCall().BeforeToolCall(ctx, &c); err != nil || !r.Block || r.Reason != "blocked write (call_7)" {
		t.Fatalf("block: %+v %v", r, err)
	}
	c = call(`{}`)
	if r, err := p.BeforeToolCall().BeforeToolCall(ctx, &c); err != nil || r.Block {
		t.Fatalf("allow: %+v %v", r, err)
	}
	c = call(`{"hookfail":true}`)
	if _, err := p.BeforeToolCall().BeforeToolCall(ctx, &c); err == nil || !strings.Contains(err.Error(), "the hook failed") {
		t.Fatalf("hook error: %v", err)
	}
	ac := host.AfterToolCallContext{ToolCallContext: call(`{}`), Result: host.ToolResult{Content: host.Contents{host.TextContent{Text: "x"}}}}
	if r, err := p.AfterToolCall().AfterToolCall(ctx, &ac); err != nil || r == nil || r.Content != nil || r.Details != nil || r.IsError != nil || r.Terminate != nil {
		t.Fatalf("keep: %+v %v", r, err)
	}
	ac = host.AfterToolCallContext{ToolCallContext: call(`{"rewrite":true}`), IsError: true, Result: host.ToolResult{
		Content: host.Contents{host.TextContent{Text: "orig"}, host.ImageContent{Data: "AA==", MimeType: "image/gif"}},
		Details: map[string]any{"n": 1},
	}}
	r, err := p.AfterToolCall().AfterToolCall(ctx, &ac)
	if err != nil || r.Content.TextOf() != "rewritten" || r.IsError == nil || *r.IsError || r.Terminate == nil || !*r.Terminate {
		t.Fatalf("rewrite: %+v %v", r, err)
	}
	var d map[string]any
	json.Unmarshal([]byte(jsonOf(r.Details)), &d)
	if !reflect.DeepEqual(d, map[string]any{"seen": "text:orig;image:image/gif;", "wasError": true, "details": map[string]any{"n": float64(1)}}) {
		t.Fatalf("details %v", d)
	}
}

// Registration mistakes make the host refuse the plugin, each named.
func TestRegistrationMistakes(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the plugin in the host")
	}
	_, err := wasmtool.Load(context.Background(), plugintest.Runtime(t), wasmbuild.ASForTest(t, "internal/testplugins/asbad"), wasmtool.Options{})
	if err == nil {
		t.Fatal("the host loaded a plugin with registration mistakes")
	}
	for _, want := range []string{
		`registerTool "ok": registered twice`, "registerTool: a tool has no name", "the plugin has no name",
		`registerTool "broken": parameters is not valid JSON: JSON at offset 17`,
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the load error does not say %q:\n%v", want, err)
		}
	}
}

// A configuration the plugin's check refuses stops the load, saying why.
func TestCheckConfig(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the plugin in the host")
	}
	_, err := wasmtool.Load(context.Background(), plugintest.Runtime(t), wasmbuild.ASForTest(t, probe), wasmtool.Options{Grants: runtime.Grants{Config: map[string]string{"reject": "1"}}})
	if err == nil || !strings.Contains(err.Error(), "configuration: reject is set") {
		t.Fatalf("load: %v", err)
	}
}
