package sdk

import (
	"encoding/json"
	"errors"
)

// ABIVersion is the plugin contract version a plugin declares in its
// description and a host checks. docs/abi.md is its specification.
const ABIVersion = 1

// The exports of a plugin.
const (
	ExportDescribe         = "describe"
	ExportExecute          = "execute"
	ExportPrepareArguments = "prepare_arguments"
	ExportBeforeToolCall   = "before_tool_call"
	ExportAfterToolCall    = "after_tool_call"
)

// The hook names a description lists.
const (
	HookBeforeToolCall = "beforeToolCall"
	HookAfterToolCall  = "afterToolCall"
)

// The execution modes of a tool.
const (
	Parallel   = "parallel"
	Sequential = "sequential"
)

// HostModule is the import module of the host functions wasmagent adds to
// the Extism ones; HostEmitUpdate is the function that sends a partial
// result: it takes the Extism offset of a JSON [Result].
const (
	HostModule     = "extism:host/user"
	HostEmitUpdate = "emit_update"
)

// Description is what the describe export returns.
type Description struct {
	ABI     int        `json:"abi"`
	Name    string     `json:"name"`
	Version string     `json:"version,omitempty"`
	Tools   []ToolSpec `json:"tools,omitempty"`
	Hooks   []string   `json:"hooks,omitempty"`
	// Gate declares the beforeToolCall hook a gate: it runs after every
	// hook that may rewrite, sees the final arguments and may not rewrite
	// them (docs/hooks.md).
	Gate  bool   `json:"gate,omitempty"`
	Needs *Needs `json:"needs,omitempty"`
}

// ToolSpec describes one tool of a plugin.
type ToolSpec struct {
	Name          string          `json:"name"`
	Label         string          `json:"label,omitempty"`
	Description   string          `json:"description"`
	Parameters    json.RawMessage `json:"parameters,omitempty"`
	ExecutionMode string          `json:"executionMode,omitempty"`
	// PrepareArguments says the tool's arguments go through the
	// prepare_arguments export before validation; without it the host
	// does not call that export.
	PrepareArguments bool `json:"prepareArguments,omitempty"`
	// Annotations are hints about the tool for clients that show or
	// gate calls (an MCP client's tool annotations); nil claims nothing.
	Annotations *Annotations `json:"annotations,omitempty"`
}

// Annotations are what a tool says of itself: hints, never trusted for
// security (the grants are what bound a tool). A nil field claims nothing.
type Annotations struct {
	// ReadOnly: the tool changes nothing outside itself.
	ReadOnly *bool `json:"readOnlyHint,omitempty"`
	// Destructive: it may delete or overwrite (meaningful when not
	// read-only).
	Destructive *bool `json:"destructiveHint,omitempty"`
	// Idempotent: calling it again with the same arguments has no further
	// effect (meaningful when not read-only).
	Idempotent *bool `json:"idempotentHint,omitempty"`
	// OpenWorld: it reaches things outside the host (the network).
	OpenWorld *bool `json:"openWorldHint,omitempty"`
}

// Needs lists the grants a plugin asks for. A host refuses to start a
// plugin whose required needs are not granted and reports grants nobody
// asked for.
type Needs struct {
	Paths  []PathNeed   `json:"paths,omitempty"`
	Hosts  []HostNeed   `json:"hosts,omitempty"`
	Config []ConfigNeed `json:"config,omitempty"`
}

// AnyGrant, as the Guest of a PathNeed or the Host of a HostNeed, asks for
// at least one directory (host) wherever the operator grants it: a plugin
// whose directories or hosts are the operator's choice (a file tool, a web
// fetcher) says so, so that a host refuses it when none is granted and does
// not call the ones granted unasked for.
const AnyGrant = "*"

// PathNeed asks for a directory at a guest path (or AnyGrant), writable
// when Write is set.
type PathNeed struct {
	Guest    string `json:"guest"`
	Write    bool   `json:"write,omitempty"`
	Optional bool   `json:"optional,omitempty"`
	Why      string `json:"why,omitempty"`
}

// HostNeed asks for outbound HTTP to a host (a name, "*.name", either with
// ":port", or AnyGrant).
type HostNeed struct {
	Host     string `json:"host"`
	Optional bool   `json:"optional,omitempty"`
	Why      string `json:"why,omitempty"`
}

// ConfigNeed asks for a configuration value.
type ConfigNeed struct {
	Key      string `json:"key"`
	Optional bool   `json:"optional,omitempty"`
	Why      string `json:"why,omitempty"`
}

// ExecuteInput is the input of the execute export.
type ExecuteInput struct {
	ToolCallID string          `json:"toolCallId"`
	Name       string          `json:"name"`
	Args       json.RawMessage `json:"args"`
}

// PrepareInput is the input of the prepare_arguments export; its output is
// the arguments to validate instead of Args.
type PrepareInput struct {
	Name string          `json:"name"`
	Args json.RawMessage `json:"args"`
}

// Content is one block of a result: {"type":"text","text"} or
// {"type":"image","data","mimeType"} (data in base64).
type Content struct {
	Type     string `json:"type"`
	Text     string `json:"text,omitempty"`
	Data     string `json:"data,omitempty"`
	MimeType string `json:"mimeType,omitempty"`
}

// Result is the output of execute and the payload of emit_update.
type Result struct {
	Content   []Content `json:"content"`
	Details   any       `json:"details,omitempty"`
	IsError   bool      `json:"isError,omitempty"`
	Terminate bool      `json:"terminate,omitempty"`
}

// ToolCall is a call as the model sent it.
type ToolCall struct {
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

// BeforeInput is the input of before_tool_call: the call and its prepared,
// validated arguments.
type BeforeInput struct {
	ToolCall ToolCall        `json:"toolCall"`
	Args     json.RawMessage `json:"args"`
}

// BeforeOutput is the output of before_tool_call: {} allows the call;
// block (with a reason for the model) blocks it; arguments rewrites the
// arguments the call runs with (they are validated again; a gate may not);
// ask is a question the user (or the host's on_ask) must approve before the
// call goes on. Block wins over ask, and ask over arguments.
type BeforeOutput struct {
	Block     bool            `json:"block,omitempty"`
	Reason    string          `json:"reason,omitempty"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
	Ask       string          `json:"ask,omitempty"`
}

// Block is the output that blocks a call, telling the model reason.
func Block(reason string) *BeforeOutput { return &BeforeOutput{Block: true, Reason: reason} }

// Ask is the output that asks the user to approve the call.
func Ask(question string) *BeforeOutput { return &BeforeOutput{Ask: question} }

// Rewrite is the output that runs the call with args instead (a value
// that encodes to a JSON object).
func Rewrite(args any) (*BeforeOutput, error) {
	raw, err := json.Marshal(args)
	if err != nil {
		return nil, err
	}
	if len(raw) == 0 || raw[0] != '{' {
		return nil, errors.New("sdk: Rewrite: the arguments must be a JSON object")
	}
	return &BeforeOutput{Arguments: raw}, nil
}

// ResultData is the result an after_tool_call hook is shown: the object
// the tool returned, as pi's hooks see it (a host also writes the members
// the tool returned beyond these, which this type does not keep).
type ResultData struct {
	Content   []Content       `json:"content"`
	Details   json.RawMessage `json:"details,omitempty"`
	Terminate *bool           `json:"terminate,omitempty"`
}

// AfterInput is the input of after_tool_call.
type AfterInput struct {
	ToolCall ToolCall        `json:"toolCall"`
	Args     json.RawMessage `json:"args"`
	Result   ResultData      `json:"result"`
	IsError  bool            `json:"isError"`
}

// AfterOutput is the output of after_tool_call: each field that is present
// replaces the result's; absent fields keep their value.
type AfterOutput struct {
	Content   []Content `json:"content,omitempty"`
	Details   any       `json:"details,omitempty"`
	IsError   *bool     `json:"isError,omitempty"`
	Terminate *bool     `json:"terminate,omitempty"`
}
