//go:build unix

package runtime_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/wasmagent/wasmagent/internal/wasmbuild"
	"github.com/wasmagent/wasmagent/runtime"
)

// The WASI errnos the disk tests look for.
const (
	errnoSuccess = 0
	errnoDquot   = 19
)

// A program of internal/testplugins/watdisk: one record per operation.
type diskOp struct {
	op, slot, flags byte
	off             int64
	n               uint32
	a, b            string
}

const (
	dOpen = iota
	dWrite
	dPwrite
	dSeek
	dAllocate
	dSetSize
	dMkdir
	dSymlink
	dLink
	dUnlink
	dRename
	dClose
	dRmdir
	dTrap
)

// Open flags of watdisk.
const (
	fCreat  = 1
	fExcl   = 4
	fTrunc  = 8
	fAppend = 16
	fRead   = 32
)

func diskProgram(ops []diskOp) []byte {
	var b []byte
	for _, o := range ops {
		r := make([]byte, 32)
		r[0], r[1], r[2], r[3], r[4] = o.op, o.slot, o.flags, byte(len(o.a)), byte(len(o.b))
		binary.LittleEndian.PutUint64(r[8:], uint64(o.off))
		binary.LittleEndian.PutUint32(r[16:], o.n)
		copy(r[20:26], o.a)
		copy(r[26:32], o.b)
		b = append(b, r...)
	}
	return b
}

func (o diskOp) String() string {
	names := []string{"open", "write", "pwrite", "seek", "allocate", "setsize", "mkdir", "symlink", "link", "unlink", "rename", "close", "rmdir", "trap"}
	return fmt.Sprintf("%s(slot %d flags %d off %d n %d %q %q)", names[o.op], o.slot, o.flags, o.off, o.n, o.a, o.b)
}

var watDisk []byte

func diskPlugin(t testing.TB, r *runtime.Runtime, dir string, maxBytes int64, maxFiles int) *runtime.Plugin {
	t.Helper()
	if watDisk == nil {
		b, err := os.ReadFile(wasmbuild.WATForTest(t, "internal/testplugins/watdisk"))
		if err != nil {
			t.Fatal(err)
		}
		watDisk = b
	}
	m, err := r.Compile(context.Background(), "watdisk.wasm", watDisk)
	if err != nil {
		t.Fatal(err)
	}
	p, err := r.NewPlugin(m, runtime.PluginOptions{Name: "watdisk", Grants: runtime.Grants{
		Dirs:         []runtime.Dir{{Host: dir, Guest: "/rw", Write: true}},
		MaxDiskBytes: maxBytes, MaxNewFiles: maxFiles,
	}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	return p
}

func runDisk(t *testing.T, p *runtime.Plugin, ops []diskOp) []byte {
	t.Helper()
	out, err := p.Call(context.Background(), "run", diskProgram(ops), nil)
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	if len(out) != len(ops) {
		t.Fatalf("%d errnos for %d operations", len(out), len(ops))
	}
	return out
}

// A plugin filling its writable grant stops at the caps, whatever way it
// grows files or makes entries: writes, appends, a write far past the
// end, fd_allocate, fd_filestat_set_size, files, directories, symbolic
// and hard links. Each refused operation fails with EDQUOT and changes
// nothing; each call has the caps anew. On the old main every one of
// these succeeded (a 1 TiB file in one pwrite).
func TestDiskCapStopsFilling(t *testing.T) {
	dir := t.TempDir()
	const maxBytes, maxFiles = 1 << 20, 16
	p := diskPlugin(t, rt(t), dir, maxBytes, maxFiles)

	// 32 writes of 64 KiB: the first 16 fit.
	ops := []diskOp{{op: dOpen, flags: fCreat, a: "big"}}
	for range 32 {
		ops = append(ops, diskOp{op: dWrite, n: 64 << 10})
	}
	out := runDisk(t, p, ops)
	for i, e := range out {
		if want := byte(errnoSuccess); i > 16 && e != errnoDquot || i <= 16 && e != want {
			t.Fatalf("operation %d %v: errno %d (all: %v)", i, ops[i], e, out)
		}
	}
	if fi, err := os.Stat(filepath.Join(dir, "big")); err != nil || fi.Size() != maxBytes {
		t.Fatalf("big: %v %v, want %d bytes", fi, err, maxBytes)
	}

	// Growing an existing file another way, each in a fresh call with
	// the whole cap: past the end, allocated, resized, appended.
	for _, grow := range []diskOp{
		{op: dPwrite, off: 1 << 40, n: 1},
		{op: dPwrite, off: 2 * maxBytes, n: 1},
		{op: dAllocate, off: maxBytes, n: maxBytes + 1},
		{op: dSetSize, off: 2*maxBytes + 1},
		{op: dSetSize, off: 1<<63 - 1},
	} {
		out := runDisk(t, p, []diskOp{{op: dOpen, a: "big"}, grow})
		if out[0] != errnoSuccess || out[1] != errnoDquot {
			t.Errorf("%v: errnos %v, want [0 %d]", grow, out, errnoDquot)
		}
	}
	out = runDisk(t, p, []diskOp{{op: dOpen, flags: fAppend, a: "big"}, {op: dWrite, n: 1}, {op: dSeek}, {op: dWrite, n: 1}})
	if !bytes.Equal(out, []byte{0, 0, 0, 0}) {
		t.Errorf("appending 2 bytes: errnos %v", out)
	}
	if fi, err := os.Stat(filepath.Join(dir, "big")); err != nil || fi.Size() != maxBytes+2 {
		t.Fatalf("big: %v %v, want %d bytes", fi, err, maxBytes+2)
	}
	// Within the file's size, writing is free.
	ops = []diskOp{{op: dOpen, a: "big"}}
	for i := range 40 {
		ops = append(ops, diskOp{op: dPwrite, off: int64(i) * 16 << 10, n: 64 << 10})
	}
	for i, e := range runDisk(t, p, ops) {
		if e != errnoSuccess {
			t.Fatalf("overwriting, operation %d: errno %d", i, e)
		}
	}

	// 40 new entries of every kind: the first 16 are made.
	ops = nil
	for i := range 40 {
		name := fmt.Sprintf("n%02d", i)
		switch i % 4 {
		case 0:
			ops = append(ops, diskOp{op: dOpen, slot: 1, flags: fCreat | fExcl, a: name}, diskOp{op: dClose, slot: 1})
		case 1:
			ops = append(ops, diskOp{op: dMkdir, a: name})
		case 2:
			ops = append(ops, diskOp{op: dSymlink, a: "big", b: name})
		case 3:
			ops = append(ops, diskOp{op: dLink, a: "big", b: name})
		}
	}
	out = runDisk(t, p, ops)
	made := 0
	for i, e := range out {
		switch {
		case ops[i].op == dClose:
		case e == errnoSuccess:
			made++
		case e != errnoDquot:
			t.Errorf("operation %d %v: errno %d", i, ops[i], e)
		}
	}
	entries, _ := os.ReadDir(dir)
	if made != maxFiles || len(entries) != 1+maxFiles {
		t.Errorf("%d entries made, %d in the grant; want %d and %d", made, len(entries), maxFiles, 1+maxFiles)
	}
}

// A refusal is explained on the host's side, naming the grant, the cap
// and the agent.toml key to raise: in the log, once per call, and in the
// error of a call that then fails. The guest's other file operations go
// on meanwhile.
func TestDiskCapRefusalIsExplained(t *testing.T) {
	var logged bytes.Buffer
	r, err := runtime.New(context.Background(), runtime.Options{CacheDir: testCacheDir(t), Logger: slog.New(slog.NewTextHandler(&logged, nil))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close(context.Background()) })
	dir := t.TempDir()
	p := diskPlugin(t, r, dir, 1000, 2)
	ops := []diskOp{{op: dOpen, flags: fCreat, a: "f"}, {op: dWrite, n: 1001}, {op: dWrite, n: 1001}, {op: dWrite, n: 10}, {op: dTrap}}
	_, err = p.Call(context.Background(), "run", diskProgram(ops), nil)
	var ce *runtime.CallError
	if !errors.As(err, &ce) || !errors.Is(err, runtime.ErrTrap) || ce.Refused == nil || ce.Refused.Cap != "MaxDiskBytes" {
		t.Fatalf("err = %#v", err)
	}
	for _, want := range []string{"fd_write f", "directory grant /rw (host " + dir + ")", "1001 bytes", "Grants.MaxDiskBytes", "grants.max_disk"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the error does not say %q: %v", want, err)
		}
		if !strings.Contains(logged.String(), want) {
			t.Errorf("the log does not say %q: %s", want, logged.String())
		}
	}
	if n := strings.Count(logged.String(), "disk cap"); n != 1 {
		t.Errorf("%d log lines, want 1: %s", n, logged.String())
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "f")); len(b) != 10 {
		t.Errorf("f holds %d bytes, want the 10 of the write within the cap", len(b))
	}
	ops = []diskOp{{op: dMkdir, a: "a"}, {op: dMkdir, a: "b"}, {op: dMkdir, a: "c"}, {op: dTrap}}
	_, err = p.Call(context.Background(), "run", diskProgram(ops), nil)
	if !errors.As(err, &ce) || ce.Refused == nil || ce.Refused.Cap != "MaxNewFiles" || !strings.Contains(err.Error(), "grants.max_new_files") || !strings.Contains(err.Error(), "path_create_directory c") {
		t.Fatalf("err = %v", err)
	}
}

// Generated programs of file operations (writes anywhere, allocations,
// resizes, creations of every kind, renames and removals), each run
// twice from the same tree: under small caps, and with caps no program
// reaches. They behave alike, operation for operation, until the capped
// run refuses, with EDQUOT, one that succeeds uncapped (at the cap, one
// that fails anyway may fail with EDQUOT too); the capped tree never
// holds more than the caps allow. For programs that
// only add (no shrinking, removing or renaming), what the uncapped run
// added decides exactly whether the capped run is refused: no refusal
// while the program fits, a refusal when it does not.
func TestDiskCapProperty(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, uint64(os.Getpid())))
	r := rt(t)
	names := []string{"a", "b", "c", "d/a", "d/b", "d/e/f", "l"}
	programs := 80
	if testing.Short() {
		programs = 20
	}
	refused, fitted, refusedAdding := 0, 0, 0
	// Past programs, go on (a bounded while) until the generator has made
	// each kind the test needs: refused while only adding, refused
	// otherwise, and fitting. A short run's 20 could miss one.
	needKinds := func() bool { return refusedAdding == 0 || refused == refusedAdding || fitted == 0 }
	for i := 0; i < programs || (needKinds() && i < 10*programs); i++ {
		monotone := i%2 == 0
		ops := genDiskProgram(rng, names, monotone)
		maxBytes, maxFiles := int64(1+rng.IntN(300_000)), 1+rng.IntN(6)
		capped, free := t.TempDir(), t.TempDir()
		for _, d := range []string{capped, free} {
			seedDiskTree(t, d)
		}
		before := diskTreeOf(t, capped)
		got := runDisk(t, diskPlugin(t, r, capped, maxBytes, maxFiles), ops)
		want := runDisk(t, diskPlugin(t, r, free, 1<<50, 1<<30), ops)
		// Operation for operation, the same errno; or, at the cap,
		// EDQUOT for one that fails anyway (nothing changes either way),
		// until one that succeeds uncapped is refused.
		first := -1
		for k := range ops {
			switch {
			case got[k] == want[k]:
				continue
			case got[k] == errnoDquot && want[k] != errnoSuccess:
				continue
			case got[k] == errnoDquot:
				first = k
			default:
				t.Fatalf("program %d: operation %d: errno %d, uncapped %d\n%v", i, k, got[k], want[k], ops)
			}
			break
		}
		if first < 0 {
			fitted++
			if a, b := diskTreeOf(t, capped), diskTreeOf(t, free); !a.same(b) {
				t.Fatalf("program %d: the trees differ:\n%v\n%v\n%v", i, a, b, ops)
			}
		} else {
			refused++
			if monotone {
				refusedAdding++
			}
		}
		after := diskTreeOf(t, capped)
		if added := after.bytes - before.bytes; added > maxBytes {
			t.Fatalf("program %d: %d bytes added, over the cap of %d\n%v", i, added, maxBytes, ops)
		}
		if added := after.entries - before.entries; added > maxFiles {
			t.Fatalf("program %d: %d entries added, over the cap of %d\n%v", i, added, maxFiles, ops)
		}
		if monotone {
			grown := diskTreeOf(t, free)
			fits := grown.bytes-before.bytes <= maxBytes && grown.entries-before.entries <= maxFiles
			if fits != (first < 0) {
				t.Fatalf("program %d adds %d bytes and %d entries uncapped, caps %d and %d: refused at %d\n%v", i,
					grown.bytes-before.bytes, grown.entries-before.entries, maxBytes, maxFiles, first, ops)
			}
		}
	}
	t.Logf("%d programs refused (%d of them only adding), %d within the caps", refused, refusedAdding, fitted)
	if needKinds() {
		t.Fatalf("the generator made %d refused programs (%d only adding) and %d fitting: each kind is needed", refused, refusedAdding, fitted)
	}
}

func genDiskProgram(rng *rand.Rand, names []string, monotone bool) []diskOp {
	name := func() string { return names[rng.IntN(len(names))] }
	offset := func() int64 {
		switch rng.IntN(8) {
		case 0:
			return 1 << (20 + rng.IntN(12))
		case 1:
			return 0
		default:
			return int64(rng.IntN(200_000))
		}
	}
	var ops []diskOp
	for range 1 + rng.IntN(30) {
		slot := byte(rng.IntN(3))
		var o diskOp
		switch k := rng.IntN(14); k {
		case 0, 1, 2:
			flags := []byte{0, fCreat, fCreat | fExcl, fAppend, fCreat | fAppend, fRead, fCreat | fTrunc}[rng.IntN(7)]
			if monotone && flags&fTrunc != 0 {
				flags = fCreat
			}
			o = diskOp{op: dOpen, slot: slot, flags: flags, a: name()}
		case 3, 4:
			o = diskOp{op: dWrite, slot: slot, n: uint32(rng.IntN(65537))}
		case 5:
			o = diskOp{op: dPwrite, slot: slot, off: offset(), n: uint32(rng.IntN(65537))}
		case 6:
			o = diskOp{op: dSeek, slot: slot, off: offset()}
		case 7:
			o = diskOp{op: dAllocate, slot: slot, off: offset(), n: uint32(rng.IntN(100_000))}
		case 8:
			o = diskOp{op: dSetSize, slot: slot, off: offset()}
		case 9:
			o = diskOp{op: dMkdir, a: []string{"d", "d/e", "m"}[rng.IntN(3)]}
		case 10:
			o = diskOp{op: dSymlink, a: name(), b: name()}
		case 11:
			o = diskOp{op: dLink, a: name(), b: name()}
		case 12:
			o = diskOp{op: dClose, slot: slot}
		case 13:
			o = diskOp{op: []byte{dUnlink, dRename, dRmdir}[rng.IntN(3)], a: name(), b: name()}
		}
		if monotone && (o.op == dSetSize || o.op == dUnlink || o.op == dRename || o.op == dRmdir) {
			// set_size may shrink: allocate only grows
			o = diskOp{op: dAllocate, slot: slot, off: offset(), n: uint32(rng.IntN(100_000))}
		}
		ops = append(ops, o)
	}
	return ops
}

// seedDiskTree puts in dir what programs find there: a file, a
// directory, a dangling link.
func seedDiskTree(t *testing.T, dir string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, "a"), make([]byte, 5000), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "d"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("c", filepath.Join(dir, "l")); err != nil {
		t.Fatal(err)
	}
}

// diskTree is what a grant holds: its entries, the bytes of its files
// (each once, however many links it has) and of its links' targets.
type diskTree struct {
	entries int
	bytes   int64
	shape   map[string]string
}

func diskTreeOf(t *testing.T, dir string) diskTree {
	t.Helper()
	tree := diskTree{shape: map[string]string{}}
	seen := map[uint64]bool{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == dir {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		tree.entries++
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		if fi.IsDir() {
			tree.shape[rel] = "dir"
			return nil
		}
		ino := fi.Sys().(*syscall.Stat_t).Ino
		first := !seen[ino]
		seen[ino] = true
		if fi.Mode()&fs.ModeSymlink != 0 {
			target, _ := os.Readlink(p)
			tree.shape[rel] = "link " + target
		} else {
			tree.shape[rel] = fmt.Sprintf("file %d", fi.Size())
		}
		if first {
			tree.bytes += fi.Size() // a link's size is its target's length
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return tree
}

func (a diskTree) same(b diskTree) bool {
	return a.entries == b.entries && a.bytes == b.bytes && fmt.Sprint(a.shape) == fmt.Sprint(b.shape)
}

// FuzzDiskCap runs any program of watdisk's operations under small caps:
// the call never takes the host down, and the grant never holds more
// than the caps allow.
func FuzzDiskCap(f *testing.F) {
	rng := rand.New(rand.NewPCG(1, 2))
	names := []string{"a", "b", "d/a", "l"}
	for i := range 8 {
		f.Add(diskProgram(genDiskProgram(rng, names, i%2 == 0)))
	}
	const maxBytes, maxFiles = 100_000, 4
	// One plugin for every input (making one per input made the fuzzer
	// run a few inputs a second), its grant emptied and seeded again.
	dir := f.TempDir()
	p := diskPlugin(f, rt(f), dir, maxBytes, maxFiles)
	f.Fuzz(func(t *testing.T, program []byte) {
		program = program[:len(program)&^31]
		if len(program) > 64*32 {
			program = program[:64*32]
		}
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			if err := os.RemoveAll(filepath.Join(dir, e.Name())); err != nil {
				t.Fatal(err)
			}
		}
		seedDiskTree(t, dir)
		before := diskTreeOf(t, dir)
		_, err := p.Call(context.Background(), "run", program, nil)
		if err != nil && !errors.Is(err, runtime.ErrTrap) {
			t.Fatalf("want success or a trap: %v", err)
		}
		after := diskTreeOf(t, dir)
		if after.bytes-before.bytes > maxBytes || after.entries-before.entries > maxFiles {
			t.Fatalf("%d bytes and %d entries added, over the caps", after.bytes-before.bytes, after.entries-before.entries)
		}
	})
}

// A Go plugin (the fs plugin) over its disk cap fails with Go's own
// message for EDQUOT ("Quota exceeded"), and the call's error says which cap and key.
func TestDiskCapThroughGoPlugin(t *testing.T) {
	dir := t.TempDir()
	p := plugin(t, "plugins/fs", runtime.PluginOptions{Grants: runtime.Grants{
		Dirs: []runtime.Dir{{Host: dir, Guest: "/work", Write: true}}, MaxDiskBytes: 1000,
	}})
	ctx := context.Background()
	if _, err := execute(ctx, p, "write", map[string]string{"path": "small.txt", "content": strings.Repeat("x", 1000)}, nil); err != nil {
		t.Fatalf("1000 bytes: %v", err)
	}
	_, err := execute(ctx, p, "write", map[string]string{"path": "big.txt", "content": strings.Repeat("x", 1001)}, nil)
	var ce *runtime.CallError
	if !errors.As(err, &ce) || !errors.Is(err, runtime.ErrPlugin) || !strings.Contains(ce.Message, "Quota exceeded") || !strings.Contains(err.Error(), "grants.max_disk") {
		t.Fatalf("1001 bytes: %v", err)
	}
	if fi, err := os.Stat(filepath.Join(dir, "big.txt")); err != nil || fi.Size() != 0 {
		t.Errorf("big.txt: %v %v, want created empty", fi, err)
	}
}
