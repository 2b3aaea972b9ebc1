// Package wasmbin reads and writes the WebAssembly binary format, as much
// as the runtime needs: LEB128 integers that refuse the encodings the spec
// forbids, sections, function types, limits, and the facts about a
// module's memories and tables that the runtime checks before compiling.
// It validates nothing beyond what it reads; wazero validates modules.
package wasmbin
