// Package sdktest runs a plugin's tools and hooks natively, in a plain
// `go test` of the plugin's package, through the same JSON the Wasm exports
// exchange with the host. Arguments are prepared and validated against the
// tool's schema as the host does, so a schema mistake fails the test.
//
//	func TestGreet(t *testing.T) {
//		var h sdktest.Host
//		res, err := h.Execute("greet", map[string]any{"name": "Ada"})
//		...
//	}
package sdktest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"

	"github.com/wasmagent/wasmagent/host"
	"github.com/wasmagent/wasmagent/sdk"
)

// Host is the plugin's host in a test: its configuration values, and what
// the plugin logged and sent as updates. The zero value has no
// configuration.
type Host struct {
	Config map[string]string
	// HTTP serves the plugin's HTTP requests (see NetHTTP); nil refuses
	// them.
	HTTP func(*sdk.HTTPRequest) (*sdk.HTTPResponse, error)

	mu      sync.Mutex
	logs    []Log
	updates []json.RawMessage
}

// Log is one message the plugin logged.
type Log struct {
	Level sdk.LogLevel
	Msg   string
}

// env is the sdk.Env of a Host.
type env struct{ h *Host }

func (e env) Config(key string) (string, bool) {
	v, ok := e.h.Config[key]
	return v, ok
}

func (e env) Log(level sdk.LogLevel, msg string) {
	h := e.h
	h.mu.Lock()
	defer h.mu.Unlock()
	h.logs = append(h.logs, Log{level, msg})
}

// Update checks the payload is a JSON object and keeps it.
func (e env) Update(payload []byte) error {
	h := e.h
	var v map[string]any
	if err := json.Unmarshal(payload, &v); err != nil {
		return fmt.Errorf("sdktest: update is not a JSON object: %w", err)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.updates = append(h.updates, append(json.RawMessage(nil), payload...))
	return nil
}

func (e env) HTTP(req *sdk.HTTPRequest) (*sdk.HTTPResponse, error) {
	if e.h.HTTP == nil {
		return nil, fmt.Errorf("sdktest: this test host has no HTTP (set Host.HTTP)")
	}
	return e.h.HTTP(req)
}

// Logs returns what the plugin has logged so far.
func (h *Host) Logs() []Log {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]Log(nil), h.logs...)
}

// Updates returns the partial results the plugin has sent so far.
func (h *Host) Updates() []json.RawMessage {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]json.RawMessage(nil), h.updates...)
}

// Call runs an export with raw input, exactly as the Wasm export would.
func (h *Host) Call(export string, input []byte) ([]byte, error) {
	return sdk.Handle(env{h}, export, input)
}

// Describe runs describe and checks its output as the host does (ABI
// version, tool names, execution modes, and every tool's schema, compiled
// by the host's own compiler: a schema the host would refuse at load
// fails here too, whichever tool the test calls), and checks that
// Config gives every configuration value the plugin needs. Needs of
// directories and hosts are not checked: a native test has neither
// (sdk/wasmtest runs the plugin in the host, with them).
func (h *Host) Describe() (*sdk.Description, error) {
	out, err := h.Call(sdk.ExportDescribe, nil)
	if err != nil {
		return nil, err
	}
	var d sdk.Description
	if err := strictDecode(out, &d); err != nil {
		return nil, fmt.Errorf("describe: %w", err)
	}
	if err := sdk.CheckDescription(&d); err != nil {
		return nil, err
	}
	var errs []error
	if d.Needs != nil {
		for _, n := range d.Needs.Config {
			if _, ok := h.Config[n.Key]; !ok && !n.Optional {
				errs = append(errs, fmt.Errorf("describe: the plugin needs the configuration value %q, which Host.Config does not give: a host refuses to start it without", n.Key))
			}
		}
	}
	for _, t := range d.Tools {
		if _, err := host.CompileSchema(t.Parameters); err != nil {
			errs = append(errs, fmt.Errorf("describe: tool %s: parameters: %w", t.Name, err))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return &d, nil
}

// Execute calls tool name with args (any value that marshals to a JSON
// object, or json.RawMessage): prepare_arguments, validation against the
// tool's schema, then execute. A result the tool marks IsError comes back
// as it is, with a nil error; the host makes it an error result of its
// text, dropping its details (sdk/wasmtest's Execute returns that error).
func (h *Host) Execute(name string, args any) (*sdk.Result, error) {
	raw, err := toRaw(args)
	if err != nil {
		return nil, err
	}
	validated, err := h.validate(name, raw)
	if err != nil {
		return nil, err
	}
	in, _ := json.Marshal(sdk.ExecuteInput{ToolCallID: "call_1", Name: name, Args: validated})
	out, err := h.Call(sdk.ExportExecute, in)
	if err != nil {
		return nil, err
	}
	var res sdk.Result
	if err := strictDecode(out, &res); err != nil {
		return nil, fmt.Errorf("execute: %w", err)
	}
	return &res, nil
}

// BeforeToolCall asks the plugin's beforeToolCall hook about a call of
// tool name with args.
func (h *Host) BeforeToolCall(name string, args any) (*sdk.BeforeOutput, error) {
	raw, err := toRaw(args)
	if err != nil {
		return nil, err
	}
	in, _ := json.Marshal(sdk.BeforeInput{ToolCall: sdk.ToolCall{ID: "call_1", Name: name, Arguments: raw}, Args: raw})
	out, err := h.Call(sdk.ExportBeforeToolCall, in)
	if err != nil {
		return nil, err
	}
	var res sdk.BeforeOutput
	if err := strictDecode(out, &res); err != nil {
		return nil, fmt.Errorf("before_tool_call: %w", err)
	}
	if a := res.Arguments; len(a) > 0 && string(a) != "null" && a[0] != '{' {
		// The host refuses it too: rewritten arguments are an object.
		return nil, fmt.Errorf("before_tool_call: arguments is %.40s, not a JSON object", a)
	}
	return &res, nil
}

// AfterToolCall shows the plugin's afterToolCall hook a call and its
// result. The output's Details, if present, is a json.RawMessage.
func (h *Host) AfterToolCall(name string, args any, result *sdk.Result) (*sdk.AfterOutput, error) {
	raw, err := toRaw(args)
	if err != nil {
		return nil, err
	}
	details, err := json.Marshal(result.Details)
	if err != nil {
		return nil, err
	}
	if result.Details == nil {
		details = nil
	}
	content := result.Content
	if content == nil {
		content = []sdk.Content{}
	}
	in, _ := json.Marshal(sdk.AfterInput{
		ToolCall: sdk.ToolCall{ID: "call_1", Name: name, Arguments: raw}, Args: raw,
		Result: sdk.ResultData{Content: content, Details: details}, IsError: result.IsError,
	})
	out, err := h.Call(sdk.ExportAfterToolCall, in)
	if err != nil {
		return nil, err
	}
	var res struct {
		Content   []sdk.Content   `json:"content"`
		Details   json.RawMessage `json:"details"`
		IsError   *bool           `json:"isError"`
		Terminate *bool           `json:"terminate"`
	}
	if err := strictDecode(out, &res); err != nil {
		return nil, fmt.Errorf("after_tool_call: %w", err)
	}
	ao := &sdk.AfterOutput{Content: res.Content, IsError: res.IsError, Terminate: res.Terminate}
	if res.Details != nil {
		ao.Details = res.Details
	}
	return ao, nil
}

// validate prepares and validates args as the host does.
func (h *Host) validate(name string, raw json.RawMessage) (json.RawMessage, error) {
	d, err := h.Describe()
	if err != nil {
		return nil, err
	}
	var spec *sdk.ToolSpec
	for i := range d.Tools {
		if d.Tools[i].Name == name {
			spec = &d.Tools[i]
		}
	}
	if spec == nil {
		return nil, fmt.Errorf("Tool %s not found", name)
	}
	in, _ := json.Marshal(sdk.PrepareInput{Name: name, Args: raw})
	prepared, err := h.Call(sdk.ExportPrepareArguments, in)
	if err != nil {
		return nil, err
	}
	schema, err := host.CompileSchema(spec.Parameters)
	if err != nil {
		return nil, fmt.Errorf("tool %s: %w", name, err)
	}
	return schema.ValidateArguments(name, prepared)
}

func toRaw(args any) (json.RawMessage, error) {
	switch a := args.(type) {
	case json.RawMessage:
		return a, nil
	case nil:
		return json.RawMessage("{}"), nil
	}
	b, err := json.Marshal(args)
	if err != nil {
		return nil, fmt.Errorf("sdktest: arguments: %w", err)
	}
	return b, nil
}

func strictDecode(b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("the plugin's output is not valid: %w", err)
	}
	return nil
}

// NetHTTP serves a plugin's requests with client (http.DefaultClient if
// nil). It does not enforce grants: tests through the real host do.
func NetHTTP(client *http.Client) func(*sdk.HTTPRequest) (*sdk.HTTPResponse, error) {
	if client == nil {
		client = http.DefaultClient
	}
	return func(req *sdk.HTTPRequest) (*sdk.HTTPResponse, error) {
		method := req.Method
		if method == "" {
			method = http.MethodGet
		}
		r, err := http.NewRequest(method, req.URL, bytes.NewReader(req.Body))
		if err != nil {
			return nil, err
		}
		for k, v := range req.Headers {
			r.Header.Set(k, v)
		}
		resp, err := client.Do(r)
		if err != nil {
			return nil, err
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		if err != nil {
			return nil, err
		}
		headers := map[string]string{}
		for k, v := range resp.Header {
			headers[strings.ToLower(k)] = strings.Join(v, ",")
		}
		return &sdk.HTTPResponse{Status: resp.StatusCode, URL: resp.Request.URL.String(), Headers: headers, Body: body}, nil
	}
}
