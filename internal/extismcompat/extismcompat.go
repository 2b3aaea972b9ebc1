// Package extismcompat is how the tests run plugins on plain Extism
// go-sdk, shared by the runtime's compatibility tests and the prewarm
// (internal/testcache), which must ask wazero for the same compilation.
// It is apart from internal/wasmbuild so that the test binaries that do
// not use go-sdk do not link it.
package extismcompat

import (
	extism "github.com/extism/go-sdk"
	"github.com/tetratelabs/wazero"

	"github.com/wasmagent/wasmagent/internal/wasmbuild"
)

// CacheDir is the compilation cache of the tests that run
// plugins on plain Extism go-sdk (the runtime's compatibility tests): what
// go-sdk compiles is the module as it is, not this runtime's rewrite of
// it, and so has entries of its own.
func CacheDir() string { return wasmbuild.TestCacheDir() + "-extism" }

// Manifest and PluginConfig are what those tests hand go-sdk
// for wasm, with the compilation cache c (of CacheDir); the
// prewarm compiles through them too, so that both ask wazero for the
// same compilation (a manifest timeout or memory limit would change it).
func Manifest(wasm []byte, config map[string]string) extism.Manifest {
	return extism.Manifest{Wasm: []extism.Wasm{extism.WasmData{Data: wasm}}, Config: config}
}

// PluginConfig: see Manifest.
func PluginConfig(c wazero.CompilationCache) extism.PluginConfig {
	return extism.PluginConfig{EnableWasi: true, RuntimeConfig: wazero.NewRuntimeConfig().WithCompilationCache(c)}
}
