package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/wasmagent/wasmagent/internal/wasmbuild"
)

// A module is a Wasm file the tests build and compile.
type module struct {
	name string // its source directory, relative to the module root
	path string // the Wasm file
}

// testModules builds every plugin the tests build through wasmbuild, in
// the file the tests get: each Go package with a main.go under plugins/
// and internal/testplugins/ (command too, built the wrong way on purpose:
// the runtime refuses it at load, before compiling it, so the prewarm
// only builds it), and each directory there with a package.json (AssemblyScript, or WAT
// assembled by wabt) when node and npm are on PATH. A new plugin in those
// directories is found without a change here. only, if not empty, keeps
// just the directories it lists (comma-separated).
func testModules(only string) ([]module, error) {
	root, err := wasmbuild.ModuleRoot()
	if err != nil {
		return nil, err
	}
	var mods []module
	for _, dir := range []string{"plugins", "internal/testplugins"} {
		entries, err := os.ReadDir(filepath.Join(root, dir))
		if err != nil {
			return nil, err
		}
		for _, e := range entries {
			if !e.IsDir() || (only != "" && !slices.Contains(strings.Split(only, ","), dir+"/"+e.Name())) {
				continue
			}
			m, err := buildModule(root, dir+"/"+e.Name())
			if errors.Is(err, wasmbuild.ErrNoNode) {
				fmt.Printf("  %-32s skipped: %v\n", m.name, err)
				continue
			}
			if err != nil {
				return nil, err
			}
			if m.path != "" {
				mods = append(mods, m)
			}
		}
	}
	slices.SortFunc(mods, func(a, b module) int { return strings.Compare(a.name, b.name) })
	return mods, nil
}

// buildModule builds the plugin in dir the way the tests do, or returns
// a module without a path if dir holds no plugin.
func buildModule(root, dir string) (module, error) {
	m := module{name: dir}
	has := func(name string) bool {
		_, err := os.Stat(filepath.Join(root, dir, name))
		return err == nil
	}
	var err error
	switch {
	case has("main.go"):
		m.path, err = wasmbuild.Cached(dir)
	case has("package.json") && has("asconfig.json"):
		m.path, err = wasmbuild.ASCached(dir)
	case has("plugin.wat"):
		m.path, err = wasmbuild.WATCached(dir)
	}
	return m, err
}
