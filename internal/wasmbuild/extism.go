package wasmbuild

import (
	extism "github.com/extism/go-sdk"
	"github.com/tetratelabs/wazero"
)

// ExtismTestCacheDir is the compilation cache of the tests that run
// plugins on plain Extism go-sdk (the runtime's compatibility tests): what
// go-sdk compiles is the module as it is, not this runtime's rewrite of
// it, and so has entries of its own.
func ExtismTestCacheDir() string { return TestCacheDir() + "-extism" }

// ExtismManifest and ExtismPluginConfig are what those tests hand go-sdk
// for wasm, with the compilation cache c (of ExtismTestCacheDir); the
// prewarm compiles through them too, so that both ask wazero for the
// same compilation (a manifest timeout or memory limit would change it).
func ExtismManifest(wasm []byte, config map[string]string) extism.Manifest {
	return extism.Manifest{Wasm: []extism.Wasm{extism.WasmData{Data: wasm}}, Config: config}
}

// ExtismPluginConfig: see ExtismManifest.
func ExtismPluginConfig(c wazero.CompilationCache) extism.PluginConfig {
	return extism.PluginConfig{EnableWasi: true, RuntimeConfig: wazero.NewRuntimeConfig().WithCompilationCache(c)}
}
