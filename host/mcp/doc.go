// Package mcp serves a configuration's sandboxed tools over the Model
// Context Protocol, so that any MCP client (Claude Code, Cursor, Codex CLI,
// an agent of one's own) calls them with their hooks and grants.
//
// A tools/call goes through the same [host.ToolRunner] as a call of the
// agent loop: prepare and validate (pi's coercion), the before hooks (a
// block becomes an error result with the reason; a question goes to the
// client by elicitation when it can answer, else to the hook's on_ask), the
// tool in a fresh instance with its grants, the after hooks (redaction
// applies), and the audit record the loop writes. A plugin's partial
// results become notifications/progress when the client asked for
// progress; notifications/cancelled aborts the running plugin. Sequential
// tools run one at a time in a session, and never beside another call;
// parallel ones run concurrently, bounded by the runtime's caps.
//
// Two transports: newline-delimited JSON-RPC on stdio ([Server.ServeStdio],
// which answers a malformed line with a JSON-RPC error and reads on), and
// streamable HTTP ([Server.Handler], with bearer-token, Origin and
// body-size checks). The protocol itself is the official Go SDK's; no type
// of it appears in this package's API.
package mcp
