package sdk

import (
	"encoding/json"
	"fmt"
)

// Info names the plugin in its description.
type Info struct {
	Name    string
	Version string
	// Needs lists the grants the plugin asks for (optional).
	Needs *Needs
	// Gate declares the plugin's beforeToolCall hook a gate (Description
	// Gate).
	Gate bool
	// CheckConfig, if set, runs when the host loads the plugin (in
	// describe) and may refuse the configuration it was given: the host
	// then refuses to start, with this error.
	CheckConfig func(c *Call) error
}

// LogLevel is the level of a log message, as Extism numbers them.
type LogLevel int32

// The log levels.
const (
	LogTrace LogLevel = iota
	LogDebug
	LogInfo
	LogWarn
	LogError
)

// Env is what a plugin reaches outside itself: configuration values, the
// log and partial results. Inside Wasm it is the Extism host; in tests,
// sdktest provides one.
type Env interface {
	Config(key string) (string, bool)
	Log(level LogLevel, msg string)
	Update(payload []byte) error
	HTTP(req *HTTPRequest) (*HTTPResponse, error)
}

// HTTPRequest is an outbound request. The host sends it only to granted
// hosts (redirects included) and caps the response.
type HTTPRequest struct {
	Method  string // default GET
	URL     string
	Headers map[string]string
	Body    []byte
}

// HTTPResponse is the response to an HTTPRequest. URL is where it came
// from after redirects; header names are lower case.
type HTTPResponse struct {
	Status  int
	URL     string
	Headers map[string]string
	Body    []byte
}

// BeforeHook decides whether a call goes ahead.
type BeforeHook func(c *Call, in *BeforeInput) (*BeforeOutput, error)

// AfterHook may replace parts of a call's result.
type AfterHook func(c *Call, in *AfterInput) (*AfterOutput, error)

// registrations is what init functions registered.
type registrations struct {
	info   Info
	tools  []Tool
	byName map[string]*Tool
	before BeforeHook
	after  AfterHook
	errs   []error // registration mistakes, reported by describe
}

var registry registrations

// SetInfo sets the plugin's name, version and needs.
func SetInfo(info Info) { registry.info = info }

// RegisterTool adds a tool. A mistake (an empty or duplicate name, no Run)
// makes describe fail with a message saying what is wrong, so the host
// refuses the plugin at load time.
func RegisterTool(t Tool) {
	switch {
	case t.Name == "":
		registry.errs = append(registry.errs, fmt.Errorf("RegisterTool: a tool has no name"))
		return
	case t.Run == nil:
		registry.errs = append(registry.errs, fmt.Errorf("RegisterTool %q: Run is nil", t.Name))
		return
	case registry.byName[t.Name] != nil:
		registry.errs = append(registry.errs, fmt.Errorf("RegisterTool %q: registered twice", t.Name))
		return
	}
	if t.Parameters != nil && !json.Valid(t.Parameters) {
		registry.errs = append(registry.errs, fmt.Errorf("RegisterTool %q: Parameters is not valid JSON", t.Name))
		return
	}
	registry.tools = append(registry.tools, t)
	registry.byName = map[string]*Tool{}
	for i := range registry.tools {
		registry.byName[registry.tools[i].Name] = &registry.tools[i]
	}
}

// RegisterBeforeToolCall makes the plugin a beforeToolCall hook.
func RegisterBeforeToolCall(h BeforeHook) { registry.before = h }

// RegisterAfterToolCall makes the plugin an afterToolCall hook.
func RegisterAfterToolCall(h AfterHook) { registry.after = h }

// Call is the context of one export call: the tool call it serves (for a
// hook, the call the hook looks at) and the host.
type Call struct {
	ID   string // the tool call's id
	Name string // the tool's name
	env  Env
}

// Config returns a configuration value granted in agent.toml.
func (c *Call) Config(key string) (string, bool) { return c.env.Config(key) }

// Log writes a message to the host's log.
func (c *Call) Log(level LogLevel, msg string) { c.env.Log(level, msg) }

// Logf formats a message for the host's log.
func (c *Call) Logf(level LogLevel, format string, args ...any) {
	c.env.Log(level, fmt.Sprintf(format, args...))
}

// HTTP sends a request through the host. In Wasm, a request the grants
// refuse, or a response over its cap, ends the call with the host's
// error; the plugin does not see it.
func (c *Call) HTTP(req *HTTPRequest) (*HTTPResponse, error) { return c.env.HTTP(req) }

// Update sends a partial result: the host emits it as a
// tool_execution_update event before the call ends. The host caps them
// per call (10000 and 64 MiB by default, the grants' max_updates and
// max_update_bytes), and the one past the cap fails the call: send one
// every so many items, not one per item.
func (c *Call) Update(partial *Result) error {
	b, err := encodeResult(partial)
	if err != nil {
		return fmt.Errorf("sdk: update: %w", err)
	}
	return c.env.Update(b)
}
