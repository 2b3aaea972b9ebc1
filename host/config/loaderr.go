package config

import (
	"cmp"
	"errors"
	"fmt"
	"strings"

	"github.com/wasmagent/wasmagent/host/wasmtool"
	"github.com/wasmagent/wasmagent/runtime"
	"github.com/wasmagent/wasmagent/sdk"
)

// loadError is a plugin entry's load failure (key: "tool[0]"), at the key
// it is about — the sha256 pin, the grants or configuration the plugin
// needs, else the plugin — with what to write in the file when it is a
// missing grant. Its Err is the load's, for errors.Is and errors.As.
func (f *File) loadError(key string, err error) error {
	at, hint := key+".plugin", ""
	var pin *wasmtool.PinError
	var mg *wasmtool.MissingGrantsError
	var mem *runtime.MemoryGrantError
	var ce *runtime.CallError
	switch {
	case errors.As(err, &pin):
		at = key + ".sha256"
	case errors.As(err, &mg) && mg.Missing != nil:
		at, hint = grantFix(key, mg.Missing)
	case errors.As(err, &ce) && ce.Export == sdk.ExportDescribe && errors.Is(err, runtime.ErrPlugin) && strings.HasPrefix(ce.Message, "configuration: "):
		// The SDKs' check of the plugin's configuration (Info.CheckConfig,
		// setInfo's checkConfig) refused it when describing.
		at = key + ".config"
	case errors.As(err, &mem):
		section, _, _ := strings.Cut(key, "[")
		at, hint = key+".grants.memory", fmt.Sprintf(" (64 KiB pages); grant at least memory = %q in [%s.grants]", mibs(mem.Need), section)
	}
	return f.errorf(at, "%v%s", err, hint)
}

// grantFix is the key of the first kind of grant a plugin needs and was
// not given, and a hint that says what to write for each kind.
func grantFix(key string, n *sdk.Needs) (at, hint string) {
	section, _, _ := strings.Cut(key, "[") // "tool", "hook"
	var fixes []string
	if len(n.Paths) > 0 {
		at = key + ".grants.dirs"
		guest, write := "/work", ""
		if g := n.Paths[0].Guest; g != sdk.AnyGrant {
			guest = g
		}
		if n.Paths[0].Write {
			write = ", write = true"
		}
		fixes = append(fixes, fmt.Sprintf("dirs = [{ host = \"HOST\", guest = %q%s }] in [%s.grants]", guest, write, section))
	}
	if len(n.Hosts) > 0 {
		at = cmp.Or(at, key+".grants.hosts")
		h := n.Hosts[0].Host
		if h == sdk.AnyGrant {
			h = "NAME"
		}
		fixes = append(fixes, fmt.Sprintf("hosts = [%q] in [%s.grants]", h, section))
	}
	if len(n.Config) > 0 {
		at = cmp.Or(at, key+".config")
		fixes = append(fixes, fmt.Sprintf("%s = \"VALUE\" in [%s.config]", n.Config[0].Key, section))
	}
	return at, "; grant it with " + strings.Join(fixes, ", and ")
}

// mibs is a memory of pages as a size to write in the file, in whole MiB
// (rounded up).
func mibs(pages uint32) string {
	return fmt.Sprintf("%dMiB", (uint64(pages)+15)/16)
}
