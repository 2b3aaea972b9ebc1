package runtime_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/wasmagent/wasmagent/internal/wasmbuild"
	"github.com/wasmagent/wasmagent/runtime"
)

// direntsModule reads its first granted directory (descriptor 3) with
// fd_readdir, each time asking for as many entries as a buffer of 4 GiB
// would hold, at a buffer outside its memory: wazero reads and keeps the
// entries for the descriptor before it finds the buffer bad. "list"
// opens the directory again and again, until an open fails, and reads
// each descriptor once; "rewind" reads descriptor 3 from the start 20
// times. Both return success.
func direntsModule() []byte {
	I32, I64 := wasmbuild.I32, wasmbuild.I64
	wasi := func(name string, params ...byte) wasmbuild.Import {
		return wasmbuild.Import{Module: "wasi_snapshot_preview1", Name: name, Func: wasmbuild.Func{Params: params, Results: []byte{I32}}}
	}
	const fPathOpen, fReaddir = 0, 1
	readdir := func(fd []byte) []byte {
		return ops(fd, i32c(1024), i32c(-1), i64c(0), i32c(20), call(fReaddir), opDrop)
	}
	list := ops(
		[]byte{0x02, 0x40, 0x03, 0x40}, // block loop
		i32c(3), i32c(0), i32c(0), i32c(1), i32c(2), i64c(0), i64c(0), i32c(0), i32c(16), call(fPathOpen),
		[]byte{0x0d, 0x01}, // br_if out: the open failed
		readdir(ops(i32c(16), []byte{0x28, 0x02, 0x00})),
		[]byte{0x0c, 0x00, 0x0b, 0x0b}, // br loop; end end
		i32c(0),
	)
	rewind := ops(
		[]byte{0x02, 0x40, 0x03, 0x40},              // block loop
		lget(0), i32c(20), []byte{0x4e, 0x0d, 0x01}, // i >= 20: br_if out
		readdir(i32c(3)),
		lget(0), i32c(1), []byte{0x6a}, lset(0),
		[]byte{0x0c, 0x00, 0x0b, 0x0b}, // br loop; end end
		i32c(0),
	)
	return wasmbuild.Module{
		Imports: []wasmbuild.Import{
			wasi("path_open", I32, I32, I32, I32, I32, I64, I64, I32, I32),
			wasi("fd_readdir", I32, I32, I32, I64, I32),
		},
		Funcs:       []wasmbuild.Func{{Results: []byte{I32}, Body: list}, {Results: []byte{I32}, Locals: []byte{I32}, Body: rewind}},
		Exports:     map[string]uint32{"list": 2, "rewind": 3},
		MemoryPages: 1,
		Data:        []byte("."),
	}.Encode()
}

// bigDir is a directory of n empty files with names of 32 bytes.
func bigDir(t *testing.T, n int) string {
	dir := t.TempDir()
	for i := range n {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("a-file-with-a-32-byte-name-%05d", i)), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// The directory entries wazero keeps for an instance's open descriptors
// count against its host memory limit, as its blocks do: a plugin
// opening one directory on every descriptor it may hold, and reading
// each, ends with a CapError for MemoryPages once they pass its grant.
// On the old main nothing counted them: a plugin of one page made the
// host hold a directory of 4,000 entries 1,021 times under a grant of
// 4 MiB (414 MiB of peak RSS in one call; now 6 MiB), and a directory of
// 100,000 entries, which a call may create, would be some 10 GiB.
// Reading one descriptor again from the start counts its entries once,
// and one listing fits.
func TestDirentsHeldAreCounted(t *testing.T) {
	const pages = 64 // 4 MiB
	dir := bigDir(t, 4000)
	p := pluginOf(t, "dirents.wasm", direntsModule(), runtime.PluginOptions{Grants: runtime.Grants{
		Dirs: []runtime.Dir{{Host: dir, Guest: "/d"}}, MemoryPages: pages,
	}})
	debug.FreeOSMemory()
	reset := runtime.ResetPeakRSS()
	base, _ := runtime.PeakRSS()
	_, err := p.Call(context.Background(), "list", nil, nil)
	if peak, ok := runtime.PeakRSS(); reset && ok {
		t.Logf("%v; peak RSS %d MiB over a base of %d MiB", err, (peak-base)>>20, base>>20)
	}
	var ce *runtime.CapError
	if !errors.As(err, &ce) || ce.Cap != "MemoryPages" || !strings.Contains(err.Error(), "fd_readdir") {
		t.Fatalf("every descriptor on a directory of 4,000 entries under a grant of %d pages: err = %v, want a CapError for MemoryPages from fd_readdir", pages, err)
	}
	if _, err := p.Call(context.Background(), "rewind", nil, nil); err != nil {
		t.Fatalf("one descriptor read from the start 20 times: %v", err)
	}
}
