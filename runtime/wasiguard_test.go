//go:build unix

package runtime_test

import (
	"os"
	"path/filepath"
	goruntime "runtime"
	"testing"

	"github.com/wasmagent/wasmagent/runtime"
)

const (
	errnoMfile       = 33
	errnoNametoolong = 37
	dLongPath        = 14
	dOpenMany        = 15
)

// A path longer than runtime.MaxPathBytes, given to any WASI function
// that takes one, fails with ENAMETOOLONG before the host reads it. On
// the old main a path of 64 MiB ("a/a/a…") was copied, cleaned and split
// into its 32 million components by the host: about 1 GiB allocated for
// one call, outside the plugin's memory grant, and a second of CPU no
// deadline interrupts. A shorter path is still the file system's to
// judge.
func TestLongPathsRefusedBeforeRead(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "f"), nil, 0o644)
	p := diskPlugin(t, rt(t), dir, 0, 0)
	functions := []string{"path_open", "path_create_directory", "path_symlink (target)", "path_symlink (link)", "path_filestat_get",
		"path_unlink_file", "path_rename", "path_link", "path_readlink", "path_remove_directory", "path_filestat_set_times"}
	for f, name := range functions {
		op := diskOp{op: dLongPath, flags: byte(f), n: 64 << 20, a: "f", b: "g"}
		var before, after goruntime.MemStats
		goruntime.ReadMemStats(&before)
		out := runDisk(t, p, []diskOp{op})
		goruntime.ReadMemStats(&after)
		if out[0] != errnoNametoolong {
			t.Errorf("%s, a path of 64 MiB: errno %d, want ENAMETOOLONG", name, out[0])
		}
		t.Logf("%s: %d MiB allocated", name, (after.TotalAlloc-before.TotalAlloc)>>20)
		if grew := after.TotalAlloc - before.TotalAlloc; grew > 16<<20 {
			t.Errorf("%s, a path of 64 MiB: the host allocated %d MiB", name, grew>>20)
		}
		op.n = runtime.MaxPathBytes / 2
		if out := runDisk(t, p, []diskOp{op}); out[0] == errnoNametoolong {
			t.Errorf("%s, a path of %d bytes: errno %d, want the file system's", name, op.n, out[0])
		}
	}
}

// An instance holds at most runtime.MaxOpenFiles descriptors of the
// host's, its granted directory included: one more open fails with
// EMFILE, a close frees one, and every one is closed when the call ends.
// On the old main a plugin could open files until the host process had
// no descriptor left (here its limit is 20,000).
func TestOpenFilesAreCapped(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "f"), nil, 0o644)
	p := diskPlugin(t, rt(t), dir, 0, 0)
	fds := func() int {
		entries, err := os.ReadDir("/proc/self/fd")
		if err != nil {
			return -1
		}
		return len(entries)
	}
	base := fds()
	// The grant holds one: MaxOpenFiles-1 more fit, not MaxOpenFiles.
	if out := runDisk(t, p, []diskOp{{op: dOpenMany, a: "f", n: runtime.MaxOpenFiles - 1}}); out[0] != errnoSuccess {
		t.Fatalf("%d opens: errno %d", runtime.MaxOpenFiles-1, out[0])
	}
	if out := runDisk(t, p, []diskOp{{op: dOpenMany, a: "f", n: runtime.MaxOpenFiles}}); out[0] != errnoMfile {
		t.Fatalf("%d opens: errno %d, want EMFILE", runtime.MaxOpenFiles, out[0])
	}
	out := runDisk(t, p, []diskOp{{op: dOpen, a: "f"}, {op: dClose}, {op: dOpenMany, a: "f", n: runtime.MaxOpenFiles - 1}, {op: dOpen, slot: 1, a: "f"}})
	if out[0] != 0 || out[1] != 0 || out[2] != 0 || out[3] != errnoMfile {
		t.Fatalf("open, close, then opens: errnos %v", out)
	}
	p.Close()
	if n := fds(); base >= 0 && n > base {
		t.Errorf("%d descriptors open after the calls, %d before", n, base)
	}
}
