package mcp

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wasmagent/wasmagent/host"
)

// DefaultMaxArgumentBytes bounds a call's arguments when
// Options.MaxArgumentBytes is zero.
const DefaultMaxArgumentBytes = 1 << 20

// Options configure a Server.
type Options struct {
	// Runner holds the tools, the hooks and the approver: the five stages
	// every call goes through. Its Tools are what tools/list shows.
	Runner *host.ToolRunner
	// Audit, if set, is told each call as the loop tells its listeners:
	// a tool_execution_start before the hooks run and a
	// tool_execution_end with the final result (config.Setup.Audit).
	Audit host.Listener
	// Name and Version are what the server says it is (default
	// "wasmagent").
	Name, Version string
	// Instructions, optional, are given to clients at initialization.
	Instructions string
	// MaxArgumentBytes bounds a call's arguments (zero:
	// DefaultMaxArgumentBytes); larger ones get an error result.
	MaxArgumentBytes int
	// NoElicitation keeps hooks' questions from clients that could answer
	// them: every question goes to Runner.Approver, or to the hook's
	// on_ask.
	NoElicitation bool
	// Logger receives the server's own log (nil: none).
	Logger *slog.Logger
}

// Server serves the tools of a ToolRunner over MCP. It is safe for
// concurrent use: any number of sessions, on any transports.
type Server struct {
	opts   Options
	srv    *sdk.Server
	prefix string
	seq    atomic.Uint64

	mu    sync.Mutex
	gates map[*sdk.ServerSession]*gate
}

// New makes a Server for opts.Runner's tools. A tool whose schema cannot
// be served is an error naming it.
func New(opts Options) (*Server, error) {
	if opts.Runner == nil {
		return nil, fmt.Errorf("mcp: Options.Runner is nil")
	}
	if opts.Name == "" {
		opts.Name = "wasmagent"
	}
	if opts.MaxArgumentBytes <= 0 {
		opts.MaxArgumentBytes = DefaultMaxArgumentBytes
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	var b [6]byte
	rand.Read(b[:])
	s := &Server{opts: opts, prefix: "mcp_" + hex.EncodeToString(b[:]) + "_", gates: map[*sdk.ServerSession]*gate{}}
	s.srv = sdk.NewServer(&sdk.Implementation{Name: opts.Name, Version: opts.Version}, &sdk.ServerOptions{
		Instructions: opts.Instructions,
		Logger:       opts.Logger,
		Capabilities: &sdk.ServerCapabilities{Tools: &sdk.ToolCapabilities{}},
		// Versions with the initialize handshake only: from 2026-07-28 a
		// server may not ask the client in the middle of a call, which
		// the before hooks' "ask" needs (RATIONALE.md).
		SupportedProtocolVersions: handshakeVersions(),
	})
	seen := map[string]bool{}
	for _, t := range opts.Runner.Tools {
		info := t.Info()
		if seen[info.Name] {
			return nil, fmt.Errorf("mcp: tool %q is listed twice", info.Name)
		}
		seen[info.Name] = true
		tool, err := describe(info)
		if err != nil {
			return nil, err
		}
		sequential := info.ExecutionMode == host.ExecutionSequential
		s.srv.AddTool(tool, func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return s.call(ctx, req, sequential), nil
		})
	}
	return s, nil
}

// describe is a tool as tools/list shows it.
func describe(info host.ToolInfo) (*sdk.Tool, error) {
	schema, err := inputSchema(info.Parameters)
	if err != nil {
		return nil, fmt.Errorf("mcp: tool %s: %w", info.Name, err)
	}
	t := &sdk.Tool{Name: info.Name, Title: info.Label, Description: info.Description, InputSchema: schema}
	if h := info.Hints; !h.IsZero() {
		t.Annotations = &sdk.ToolAnnotations{Title: info.Label, DestructiveHint: h.Destructive, OpenWorldHint: h.OpenWorld}
		// The SDK's two plain booleans cannot say "nothing claimed"; false
		// is the protocol's default for both, so it claims nothing.
		t.Annotations.ReadOnlyHint = h.ReadOnly != nil && *h.ReadOnly
		t.Annotations.IdempotentHint = h.Idempotent != nil && *h.Idempotent
	}
	return t, nil
}

// inputSchema is the tool's parameters as MCP wants them: a JSON object
// whose type is "object". Empty parameters (any object) become
// {"type":"object"}; a schema without a type gets one (arguments are
// objects whatever it says). The host validates against the tool's own
// schema, not this one.
func inputSchema(params json.RawMessage) (map[string]any, error) {
	if len(params) == 0 {
		return map[string]any{"type": "object"}, nil
	}
	var m map[string]any
	if err := json.Unmarshal(params, &m); err != nil {
		return nil, fmt.Errorf("parameters are not a JSON object: %w", err)
	}
	switch typ := m["type"]; typ {
	case "object":
	case nil:
		m["type"] = "object"
	default:
		return nil, fmt.Errorf(`parameters have type %v; MCP serves only tools whose arguments are an object (type "object"): disable the tool in agent.toml`, typ)
	}
	return m, nil
}

// call runs one tools/call through the ToolRunner. Every call the server
// accepts gets an audit record, refused ones too.
func (s *Server) call(ctx context.Context, req *sdk.CallToolRequest, sequential bool) *sdk.CallToolResult {
	args := req.Params.Arguments
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	call := host.ToolCall{ID: fmt.Sprintf("%s%d", s.prefix, s.seq.Add(1)), Name: req.Params.Name, Arguments: args}
	s.audit(ctx, host.ToolExecutionStartEvent{ToolCallID: call.ID, ToolName: call.Name, Args: args})
	out := s.run(ctx, req, call, sequential)
	s.audit(ctx, host.ToolExecutionEndEvent{ToolCallID: call.ID, ToolName: call.Name, Result: out.Result, IsError: out.IsError})
	return result(out)
}

func (s *Server) run(ctx context.Context, req *sdk.CallToolRequest, call host.ToolCall, sequential bool) *host.CallOutcome {
	if n := len(call.Arguments); n > s.opts.MaxArgumentBytes {
		return refused(call, fmt.Sprintf("the arguments of %s are %d bytes, over this server's limit of %d", call.Name, n, s.opts.MaxArgumentBytes))
	}
	g := s.gate(req.Session)
	if err := g.acquire(ctx, sequential); err != nil {
		return refused(call, fmt.Sprintf("%s was cancelled before it started: %v", call.Name, err))
	}
	defer g.release(sequential)
	p := newProgress(ctx, req)
	runner := *s.opts.Runner
	if a := s.elicitor(req.Session); a != nil {
		runner.Approver = a
	}
	out := runner.Run(ctx, nil, nil, call, p.update)
	p.close()
	return out
}

func refused(call host.ToolCall, text string) *host.CallOutcome {
	return &host.CallOutcome{Call: call, Result: host.ErrorResult(text), IsError: true}
}

func (s *Server) audit(ctx context.Context, e host.Event) {
	if s.opts.Audit == nil {
		return
	}
	if err := s.opts.Audit(context.WithoutCancel(ctx), e); err != nil {
		s.opts.Logger.Error("audit", "err", err)
	}
}

// gate is the session's lock for sequential tools; it is dropped when the
// session ends.
func (s *Server) gate(ss *sdk.ServerSession) *gate {
	s.mu.Lock()
	defer s.mu.Unlock()
	g := s.gates[ss]
	if g == nil {
		g = newGate()
		s.gates[ss] = g
		if ss != nil {
			go func() {
				ss.Wait()
				s.mu.Lock()
				delete(s.gates, ss)
				s.mu.Unlock()
			}()
		}
	}
	return g
}

// newestHandshakeVersion is the last protocol version that lets a server
// ask its client (elicitation) while it serves a call.
const newestHandshakeVersion = "2025-11-25"

func handshakeVersions() []string {
	var vs []string
	for _, v := range sdk.SupportedProtocolVersions() {
		if v <= newestHandshakeVersion {
			vs = append(vs, v)
		}
	}
	return vs
}
