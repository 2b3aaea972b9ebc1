// Package wasmtool turns Wasm plugins run by package runtime into the
// host's tools and hooks: it loads a plugin, checks its description (ABI
// version, tool names, schemas, execution modes, exports, declared needs
// against grants), and adapts each export call to host.Tool,
// host.BeforeToolCallHook and host.AfterToolCallHook.
package wasmtool
