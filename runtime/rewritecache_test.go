package runtime

import (
	"bytes"
	"context"
	"crypto/sha256"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/wasmagent/wasmagent/internal/wasmbuild"
	"github.com/wasmagent/wasmagent/runtime/internal/fuel"
	imagepkg "github.com/wasmagent/wasmagent/runtime/internal/image"
	"github.com/wasmagent/wasmagent/runtime/internal/wasmbin"
)

// rewriteModules are a Go plugin (an image template, data segments,
// mutable globals) and a small hand-written one (no template).
func rewriteModules(t testing.TB) map[string][]byte {
	calc, err := os.ReadFile(wasmbuild.ForTest(t, "plugins/calc"))
	if err != nil {
		t.Fatal(err)
	}
	return map[string][]byte{"calc": calc, "echo": wasmbuild.EchoPlugin()}
}

// sameTemplate compares every field of two templates but Wasm (which
// compile drops), empty and nil slices alike.
func sameTemplate(a, b *imagepkg.Template) bool {
	if a == nil || b == nil {
		return a == b
	}
	x, y := *a, *b
	x.Wasm, y.Wasm = nil, nil
	for _, t := range []*imagepkg.Template{&x, &y} {
		if len(t.Segments) == 0 {
			t.Segments = nil
		}
		if len(t.Globals) == 0 {
			t.Globals = nil
		}
		for i := range t.Segments {
			if len(t.Segments[i].Data) == 0 {
				t.Segments[i].Data = nil
			}
		}
	}
	return reflect.DeepEqual(x, y)
}

// An entry gives back exactly what the rewrite made, for every module
// and stopper that rewrites: the module's bytes, every fact of the
// template, the reason for no image. A field added to Template that the
// entry does not keep fails here.
func TestRewriteCacheRoundTrip(t *testing.T) {
	if n := reflect.TypeOf(imagepkg.Template{}).NumField(); n != 7 {
		t.Fatalf("imagepkg.Template has %d fields, not the 7 the rewrite cache keeps: keep the new one in encodeRewrite and decodeRewrite", n)
	}
	for name, wasm := range rewriteModules(t) {
		for _, stopper := range []string{"", "nodepth"} {
			r := &Runtime{opts: Options{stopper: stopper}}
			out, tmpl, noImage, err := r.rewrite(name, wasm)
			if err != nil {
				t.Fatal(err)
			}
			if name == "calc" && (tmpl == nil || len(tmpl.Segments) == 0 || len(tmpl.Globals) == 0 || !tmpl.Go || !tmpl.Init) {
				t.Fatalf("calc's template has no segments, globals or init (%v): the round trip proves little", noImage)
			}
			key := rewriteKey(sha256.Sum256(wasm), stopper, MaxFunctionCompileCost)
			got, err := decodeRewrite(encodeRewrite(key, rewritten{wasm: out, tmpl: tmpl, noImage: noImage}), key)
			if err != nil {
				t.Fatalf("%s/%q: %v", name, stopper, err)
			}
			if !bytes.Equal(got.wasm, out) || got.noImage != noImage || !sameTemplate(got.tmpl, tmpl) {
				t.Fatalf("%s/%q: the entry differs from the rewrite (noImage %q vs %q)", name, stopper, got.noImage, noImage)
			}
		}
	}
}

// The key changes with the module, the stopper, the compile-cost cap and the rewriter's
// version (its source: any edit to it is a new version).
func TestRewriteCacheKey(t *testing.T) {
	a, b := sha256.Sum256([]byte("a")), sha256.Sum256([]byte("b"))
	if rewriteKey(a, "", MaxFunctionCompileCost) == rewriteKey(b, "", MaxFunctionCompileCost) || rewriteKey(a, "", MaxFunctionCompileCost) == rewriteKey(a, "nodepth", MaxFunctionCompileCost) {
		t.Fatal("two modules or two stoppers share a key")
	}
	if rewriteKey(a, "", MaxFunctionCompileCost) == rewriteKey(a, "", 2*MaxFunctionCompileCost) {
		t.Fatal("two compile-cost caps share a key: a module admitted under a raised cap would be read back under the default")
	}
	if rewriteKey(a, "", MaxFunctionCompileCost) != rewriteKey(a, "", MaxFunctionCompileCost) {
		t.Fatal("the key is not a function of its inputs")
	}
	var files int
	for _, src := range []interface {
		ReadDir(string) ([]os.DirEntry, error)
	}{rewriterSource, fuel.Source, imagepkg.Source, wasmbin.Source} {
		entries, err := src.ReadDir(".")
		if err != nil || len(entries) == 0 {
			t.Fatalf("the rewriter's source is not embedded: %v", err)
		}
		files += len(entries)
	}
	if files < 6 {
		t.Fatalf("only %d source files embedded", files)
	}
}

// compileIn compiles wasm in a new Runtime on cacheDir, closed with the
// test.
func compileIn(t *testing.T, cacheDir string, wasm []byte) *Module {
	t.Helper()
	ctx := context.Background()
	r, err := New(ctx, Options{CacheDir: cacheDir})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close(ctx) })
	m, err := r.Compile(ctx, "calc", wasm)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// rewriteCacheDir is a cache directory of its own for the rewrite
// cache, whose compiled code is the tests' shared compilation cache
// (linked in): the tests are about the rewrite entries, and compiling
// calc afresh for each of their compiles took 40 s under -race.
func rewriteCacheDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	shared := wasmbuild.TestCacheDir()
	if err := os.MkdirAll(shared, 0o700); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(shared)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.IsDir() && strings.HasPrefix(e.Name(), "wazero-") {
			if err := os.Symlink(filepath.Join(shared, e.Name()), filepath.Join(dir, e.Name())); err != nil {
				t.Fatal(err)
			}
		}
	}
	return dir
}

// rewriteEntry is the path of the only entry in cacheDir.
func rewriteEntry(t *testing.T, cacheDir string) string {
	t.Helper()
	m, _ := filepath.Glob(filepath.Join(cacheDir, "rewrite", "*"))
	if len(m) != 1 {
		t.Fatalf("rewrite cache entries: %q, want one", m)
	}
	return m[0]
}

// A compile writes an entry, and the next process's compile takes the
// module from it: here an entry replaced by a valid one of the same key
// that says there is no image is what the module then says. The module
// is a small hand-made one with an image template (the entry of a Go
// plugin round-trips in TestRewriteCacheRoundTrip): with calc, the
// module of the replaced entry, calc without its image, was a Go
// plugin compiled under the race detector (12 s of CPU) on every cold
// make test.
func TestRewriteCacheUsed(t *testing.T) {
	wasm := describingReactor("a reactor")
	dir := rewriteCacheDir(t)
	if m := compileIn(t, dir, wasm); m.tmpl == nil {
		t.Fatalf("the module has no image: %s", m.noImage)
	}
	path := rewriteEntry(t, dir)
	plain, err := fuel.Instrument(wasm, fuel.Options{})
	if err != nil {
		t.Fatal(err)
	}
	key := rewriteKey(sha256.Sum256(wasm), "", MaxFunctionCompileCost)
	os.WriteFile(path, encodeRewrite(key, rewritten{wasm: plain, noImage: "said by the cache"}), 0o600)
	m := compileIn(t, dir, wasm)
	if m.tmpl != nil || m.noImage != "said by the cache" {
		t.Fatalf("the entry was not used: template %v, noImage %q", m.tmpl != nil, m.noImage)
	}
	p, err := m.r.NewPlugin(m, PluginOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	out, err := p.Call(context.Background(), "describe", nil, nil)
	if err != nil || string(out) != "a reactor" {
		t.Fatalf("the module from the cache does not run: %v %.80q", err, out)
	}
}

// describingReactor is a plugin whose describe outputs d, with an
// initialiser: a module the runtime makes an image of.
func describingReactor(d string) []byte {
	m := wasmbuild.ConstModule(map[string]string{"describe": d})
	m.Funcs = append(m.Funcs, wasmbuild.Func{})
	m.Exports["_initialize"] = uint32(len(m.Imports) + len(m.Funcs) - 1)
	return m.Encode()
}

// A torn, corrupt, foreign or empty entry is a miss: the module is
// rewritten (and has its image), and the entry is replaced by a good one.
// The first compile writes the entry; each bad one is then read by
// rewriteCached, the whole of compile's use of the cache
// (TestRewriteCacheUsed follows an entry through compile). The module is
// a small hand-made one with an image template: what is tested is what
// is done with a bad entry, whatever module it is for (the entry of a Go
// plugin round-trips in TestRewriteCacheRoundTrip), and rewriting calc
// again for each case cost 0.8 s of CPU each under -race.
func TestRewriteCacheCorruptEntries(t *testing.T) {
	wasm := wasmbuild.Module{
		Funcs:       []wasmbuild.Func{{}, {Results: []byte{wasmbuild.I32}, Body: []byte{0x41, 0}}},
		Exports:     map[string]uint32{"_initialize": 0, "noop": 1},
		MemoryPages: 1,
		Data:        []byte("data the image must hold"),
	}.Encode()
	dir := rewriteCacheDir(t)
	r := compileIn(t, dir, wasm).r
	path := rewriteEntry(t, dir)
	good, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if rw, err := decodeRewrite(good, rewriteKey(sha256.Sum256(wasm), "", MaxFunctionCompileCost)); err != nil || rw.tmpl == nil || len(rw.tmpl.Segments) == 0 {
		t.Fatalf("the module's entry has no template with data (%v): a bad entry would be told from a good one by nothing", err)
	}
	otherKey := encodeRewrite(rewriteKey(sha256.Sum256([]byte("other")), "", MaxFunctionCompileCost), rewritten{wasm: []byte("x")})
	flipped := bytes.Clone(good)
	flipped[len(flipped)/2] ^= 0x40
	for name, b := range map[string][]byte{
		"torn":      good[:len(good)/2],
		"flipped":   flipped,
		"empty":     nil,
		"other key": otherKey,
		"garbage":   []byte("not an entry at all"),
	} {
		os.WriteFile(path, b, 0o600)
		if _, tmpl, noImage, err := r.rewriteCached("small", sha256.Sum256(wasm), wasm); err != nil || tmpl == nil {
			t.Fatalf("%s: no image after a bad entry: %v %s", name, err, noImage)
		}
		if after, _ := os.ReadFile(path); !bytes.Equal(after, good) {
			t.Fatalf("%s: the entry was not replaced by a good one", name)
		}
	}
}

// Any bytes decode to an entry or an error, never a panic, also when
// they carry the right magic, key and checksum; an entry that decodes
// encodes back to itself.
func FuzzDecodeRewrite(f *testing.F) {
	key := rewriteKey(sha256.Sum256([]byte("fuzz")), "", MaxFunctionCompileCost)
	tmpl := &imagepkg.Template{MinPages: 2, Go: true, Init: true, Globals: []imagepkg.Global{{Index: 1, Type: 0x7f, Export: "g1"}}, Segments: []imagepkg.Segment{{Offset: 1024, Data: []byte("data")}}}
	for _, rw := range []rewritten{{wasm: wasmbuild.EchoPlugin(), noImage: noInit}, {wasm: []byte("\x00asm\x01\x00\x00\x00"), tmpl: tmpl}} {
		e := encodeRewrite(key, rw)
		f.Add(e)
		f.Add(e[len(rewriteMagic)+sha256.Size : len(e)-sha256.Size])
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		decodeRewrite(b, key)
		// The same bytes as the body of a well-formed entry.
		e := append(append([]byte(rewriteMagic), key[:]...), b...)
		sum := sha256.Sum256(e)
		e = append(e, sum[:]...)
		rw, err := decodeRewrite(e, key)
		if err != nil {
			return
		}
		again, err := decodeRewrite(encodeRewrite(key, rw), key)
		if err != nil || !bytes.Equal(again.wasm, rw.wasm) || again.noImage != rw.noImage || !sameTemplate(again.tmpl, rw.tmpl) {
			t.Fatalf("an entry does not encode back to itself: %v", err)
		}
	})
}

// The rewrite cache's version hashes the source of every package of this
// module that the rewriter is made of: a package the rewriter comes to
// import without its source hashed would let a changed rewriter read the
// entries of the old one.
func TestRewriteCacheKeyCoversTheRewriter(t *testing.T) {
	root, err := wasmbuild.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	const mod = "github.com/wasmagent/wasmagent/"
	hashed := map[string]bool{mod + "runtime/internal/fuel": true, mod + "runtime/internal/image": true, mod + "runtime/internal/wasmbin": true}
	cmd := exec.Command(wasmbuild.GoTool(), "list", "-deps", "-f", "{{.ImportPath}}", "./runtime/internal/fuel", "./runtime/internal/image", "./runtime/internal/wasmbin")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, pkg := range strings.Fields(string(out)) {
		if strings.HasPrefix(pkg, mod) && !hashed[pkg] {
			t.Errorf("the rewriter imports %s, whose source rewriterVersion does not hash: embed it as the others do (source.go) and add it there and here", pkg)
		}
	}
}
