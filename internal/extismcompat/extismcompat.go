// Package extismcompat is how the tests run plugins on plain Extism
// go-sdk, shared by the runtime's compatibility tests and the prewarm
// (internal/testcache), which must ask wazero for the same compilation.
// It is apart from internal/wasmbuild so that the test binaries that do
// not use go-sdk do not link it.
package extismcompat

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"

	extism "github.com/extism/go-sdk"
	"github.com/tetratelabs/wazero"

	"github.com/wasmagent/wasmagent/internal/wasmbuild"
)

// CacheDir is the compilation cache of the tests that run
// plugins on plain Extism go-sdk (the runtime's compatibility tests): what
// go-sdk compiles is the module as it is, not this runtime's rewrite of
// it, and so has entries of its own.
func CacheDir() string { return wasmbuild.TestCacheDir() + "-extism" }

// Plugins are the plugins (source directories, relative to the module
// root) that the runtime's compatibility tests run on go-sdk, besides
// small modules they make themselves. The prewarm compiles these for
// go-sdk and no other: a Go plugin is some 15 MB of machine code, seconds
// of CPU each. Those tests hand each module to Check before go-sdk
// compiles it, so a large one missing here fails them rather than costs a
// race test process those seconds.
var Plugins = []string{
	"internal/testplugins/probe",
	"internal/testplugins/raw",
	"internal/testplugins/wat",
	"plugins/text",
}

// LargeModule is the size of Wasm from which a module a test compiles on
// go-sdk must be one of Plugins: the Go plugins, megabytes each. The
// AssemblyScript and WAT ones, and those the tests make, are kilobytes and
// compile in milliseconds.
const LargeModule = 1 << 20

// Check returns an error if wasm, which a test is about to compile on
// go-sdk, is of LargeModule bytes or more and is not the build of a Go
// plugin in Plugins, which the prewarm compiles for go-sdk.
func Check(wasm []byte) error {
	if len(wasm) < LargeModule {
		return nil
	}
	root, err := wasmbuild.ModuleRoot()
	if err != nil {
		return err
	}
	for _, dir := range Plugins {
		if _, err := os.Stat(filepath.Join(root, dir, "main.go")); err != nil {
			continue // not a Go plugin: small
		}
		path, err := wasmbuild.Cached(dir)
		if err != nil {
			return err
		}
		built, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if bytes.Equal(built, wasm) {
			return nil
		}
	}
	return fmt.Errorf("a module of %d bytes compiled on Extism go-sdk is none of the Go plugins in extismcompat.Plugins %q, which the prewarm compiles for go-sdk: add its directory there", len(wasm), Plugins)
}

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
