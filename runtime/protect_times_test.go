package runtime_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wasmagent/wasmagent/internal/wasmbuild"
	"github.com/wasmagent/wasmagent/runtime"
)

// timesModule's export "touch" sets the access and modification times
// of the path its input names, in its first granted directory
// (path_filestat_set_times, following links), to the epoch, and returns
// the errno as its result (0: success).
func timesModule() []byte {
	I32, I64 := wasmbuild.I32, wasmbuild.I64
	const fInputLength, fInputLoadU8, fSetTimes = 0, 1, 2
	// locals: 0 n, 1 i
	body := ops(
		call(fInputLength), lset(0),
		[]byte{0x02, 0x40, 0x03, 0x40},             // block loop: copy the input to address 0
		lget(1), lget(0), []byte{0x5a, 0x0d, 0x01}, // i >= n: br_if out
		lget(1), []byte{0xa7}, lget(1), call(fInputLoadU8), []byte{0x3a, 0x00, 0x00}, // mem[i] = input[i]
		lget(1), i64c(1), []byte{0x7c}, lset(1),
		[]byte{0x0c, 0x00, 0x0b, 0x0b},
		i32c(3), i32c(1), i32c(0), lget(0), []byte{0xa7}, i64c(0), i64c(0), i32c(5), call(fSetTimes),
	)
	return wasmbuild.Module{
		Imports: []wasmbuild.Import{
			{Module: "extism:host/env", Name: "input_length", Func: wasmbuild.Func{Results: []byte{I64}}},
			{Module: "extism:host/env", Name: "input_load_u8", Func: wasmbuild.Func{Params: []byte{I64}, Results: []byte{I32}}},
			{Module: "wasi_snapshot_preview1", Name: "path_filestat_set_times", Func: wasmbuild.Func{Params: []byte{I32, I32, I32, I32, I64, I64, I32}, Results: []byte{I32}}},
		},
		Funcs:       []wasmbuild.Func{{Results: []byte{I32}, Locals: []byte{I64, I64}, Body: body}},
		Exports:     map[string]uint32{"touch": 3},
		MemoryPages: 1,
	}.Encode()
}

// The times of a protected file are not the plugin's to change, by its
// name or through a link (make and the host's caches read them); other
// files' are. On the old main path_filestat_set_times changed them.
func TestProtectedFilesKeepTheirTimes(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"cfg", "other"} {
		if err := os.WriteFile(filepath.Join(dir, f), []byte(f), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("cfg", filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	p := pluginOf(t, "times.wasm", timesModule(), runtime.PluginOptions{Grants: runtime.Grants{
		Dirs: []runtime.Dir{{Host: dir, Guest: "/rw", Write: true}}, Protected: []string{filepath.Join(dir, "cfg")},
	}})
	for name, refused := range map[string]bool{"cfg": true, "link": true, "other": false} {
		_, err := p.Call(context.Background(), "touch", []byte(name), nil)
		switch {
		case refused && (err == nil || !strings.Contains(err.Error(), "returned 2 without")):
			t.Errorf("%s: %v, want EACCES (2)", name, err)
		case !refused && err != nil:
			t.Errorf("%s: %v, want success", name, err)
		}
	}
	for name, epoch := range map[string]bool{"cfg": false, "other": true} {
		fi, err := os.Stat(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if got := fi.ModTime().Equal(time.Unix(0, 0)); got != epoch {
			t.Errorf("%s: modified at %v; set to the epoch: %v, want %v", name, fi.ModTime(), got, epoch)
		}
	}
}
