//go:build unix

package runtime_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/wasmagent/wasmagent/runtime"
)

const errnoAcces = 2

// Files the host protects (its configuration, plugin files) stay as they
// are inside a writable grant: the plugin may read them, but not write,
// truncate, append to, remove, rename or replace them, nor rename or
// remove the directories that lead to them, by any name (a hard link, a
// symbolic link). Other files stay the plugin's. On the old main a
// plugin granted the project directory could rewrite agent.toml, and so
// grant itself more at the next run.
func TestProtectedFilesStay(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "cfg"), []byte("config"), 0o644)
	os.Mkdir(filepath.Join(dir, "pl"), 0o755)
	os.WriteFile(filepath.Join(dir, "pl", "w"), []byte("wasm"), 0o644)
	os.WriteFile(filepath.Join(dir, "other"), []byte("other"), 0o644)
	if watDisk == nil {
		diskPlugin(t, rt(t), t.TempDir(), 0, 0) // assembles it
	}
	m, err := rt(t).Compile(context.Background(), "watdisk.wasm", watDisk)
	if err != nil {
		t.Fatal(err)
	}
	p, err := rt(t).NewPlugin(m, runtime.PluginOptions{Grants: runtime.Grants{
		Dirs:      []runtime.Dir{{Host: dir, Guest: "/rw", Write: true}},
		Protected: []string{filepath.Join(dir, "cfg"), filepath.Join(dir, "pl", "w"), filepath.Join(dir, "missing"), "/etc/hostname"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	cases := []struct {
		op   diskOp
		want byte
	}{
		{diskOp{op: dOpen, flags: fRead, a: "cfg"}, 0},
		{diskOp{op: dOpen, a: "cfg"}, errnoAcces},
		{diskOp{op: dOpen, flags: fCreat | fTrunc, a: "cfg"}, errnoAcces},
		{diskOp{op: dOpen, flags: fAppend, a: "pl/w"}, errnoAcces},
		{diskOp{op: dUnlink, a: "cfg"}, errnoAcces},
		{diskOp{op: dRename, a: "cfg", b: "x"}, errnoAcces},
		{diskOp{op: dRename, a: "other", b: "cfg"}, errnoAcces},
		{diskOp{op: dRename, a: "pl", b: "p2"}, errnoAcces},
		{diskOp{op: dRmdir, a: "pl"}, errnoAcces},
		{diskOp{op: dLink, a: "cfg", b: "h"}, 0},
		{diskOp{op: dOpen, a: "h"}, errnoAcces},
		{diskOp{op: dUnlink, a: "h"}, errnoAcces},
		{diskOp{op: dSymlink, a: "cfg", b: "s"}, 0},
		{diskOp{op: dOpen, a: "s"}, errnoAcces},
		{diskOp{op: dRename, a: "s", b: "s2"}, 0},
		{diskOp{op: dOpen, slot: 1, a: "other"}, 0},
		{diskOp{op: dWrite, slot: 1, n: 3}, 0},
		{diskOp{op: dMkdir, a: "pl/new"}, 0},
		{diskOp{op: dUnlink, a: "other"}, 0},
		{diskOp{op: dOpen, flags: fRead, a: "pl/w"}, 0},
	}
	var ops []diskOp
	var want []byte
	for _, c := range cases {
		ops, want = append(ops, c.op), append(want, c.want)
	}
	if out := runDisk(t, p, ops); !bytes.Equal(out, want) {
		for i := range out {
			if out[i] != want[i] {
				t.Errorf("%v: errno %d, want %d", ops[i], out[i], want[i])
			}
		}
	}
	for name, content := range map[string]string{"cfg": "config", "pl/w": "wasm"} {
		if b, err := os.ReadFile(filepath.Join(dir, name)); err != nil || string(b) != content {
			t.Errorf("%s: %q %v", name, b, err)
		}
	}
}
