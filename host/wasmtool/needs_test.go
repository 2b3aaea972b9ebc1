package wasmtool_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/wasmagent/wasmagent/host/wasmtool"
	"github.com/wasmagent/wasmagent/runtime"
	"github.com/wasmagent/wasmagent/sdk"
)

// sdk.AnyGrant asks for at least one directory or host wherever the
// operator grants it: none granted is missing, every one granted is used.
func TestNeedsAnyGrant(t *testing.T) {
	needs := &sdk.Needs{
		Paths: []sdk.PathNeed{{Guest: sdk.AnyGrant, Why: "the files it works on"}},
		Hosts: []sdk.HostNeed{{Host: sdk.AnyGrant}},
	}
	missing, unused := wasmtool.CheckNeeds(needs, runtime.Grants{})
	want := []string{"at least one directory (read-only) (the files it works on)", "at least one host"}
	if !slices.Equal(missing, want) || len(unused) != 0 {
		t.Fatalf("nothing granted: missing %q unused %q, want missing %q", missing, unused, want)
	}
	g := runtime.Grants{
		Dirs:  []runtime.Dir{{Host: "/a", Guest: "/work"}, {Host: "/b", Guest: "/data", Write: true}},
		Hosts: []string{"example.com", "*.wikipedia.org"},
	}
	missing, unused = wasmtool.CheckNeeds(needs, g)
	if len(missing) != 0 || len(unused) != 0 {
		t.Fatalf("all granted: missing %q unused %q", missing, unused)
	}
	// A writable need is met only by a writable directory.
	needs.Paths[0].Write = true
	g.Dirs = g.Dirs[:1]
	missing, unused = wasmtool.CheckNeeds(needs, g)
	if len(missing) != 1 || !strings.Contains(missing[0], "read-write") || len(unused) != 1 {
		t.Fatalf("read-only for a write need: missing %q unused %q", missing, unused)
	}
	// Optional: none granted is fine.
	needs.Paths[0].Optional, needs.Hosts[0].Optional = true, true
	if missing, _ = wasmtool.CheckNeeds(needs, runtime.Grants{}); len(missing) != 0 {
		t.Fatalf("optional needs reported missing: %q", missing)
	}
}
