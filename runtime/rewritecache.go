package runtime

import (
	"crypto/sha256"
	"embed"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	"github.com/wasmagent/wasmagent/internal/atomicfile"
	"github.com/wasmagent/wasmagent/runtime/internal/fuel"
	imagepkg "github.com/wasmagent/wasmagent/runtime/internal/image"
	"github.com/wasmagent/wasmagent/runtime/internal/wasmbin"
)

// The rewrite cache keeps, beside the compilation cache, what compile
// makes of a module's bytes before wazero sees them: the fuel-instrumented
// module and the image template's facts. Making them costs a Go plugin
// ~100 ms of CPU and ~50 MB of allocation at every start; reading them
// back costs a file read and a sha256 (docs/runtime.md, "Startup").
//
// An entry is keyed by the sha256 of the module, the rewrite options
// (the stopper), and the rewriter's version: the sha256 of its own
// source (the code below, module.go's rewrite, compilecost.go's caps, image.go's template,
// and the fuel, image and wasmbin packages, embedded in the binary), so
// that any change to what the rewrite does misses every older entry, with
// nobody to remember to bump a number. An entry ends with the sha256 of
// the rest: a torn or corrupt file is a miss (the module is rewritten
// again and the entry replaced), never a wrong module. The directory is
// trusted as the compilation cache beside it is (which holds machine
// code): the checksum is against accidents, not against its owner.

//go:embed rewritecache.go module.go image.go compilecost.go
var rewriterSource embed.FS

// rewriteFormat is the version of the entry's layout.
const rewriteFormat = 1

// rewriteMagic starts every entry.
const rewriteMagic = "wasmagent rewrite\n"

// rewriterVersion is the sha256 of the rewriter's source, computed once.
var rewriterVersion = sync.OnceValue(func() [sha256.Size]byte {
	h := sha256.New()
	fmt.Fprintf(h, "format %d\x00", rewriteFormat)
	for _, src := range []fs.FS{rewriterSource, fuel.Source, imagepkg.Source, wasmbin.Source} {
		fs.WalkDir(src, ".", func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			b, err := fs.ReadFile(src, path)
			if err != nil {
				return err
			}
			fmt.Fprintf(h, "%s %d\x00", path, len(b))
			h.Write(b)
			return nil
		})
	}
	var v [sha256.Size]byte
	h.Sum(v[:0])
	return v
})

// rewritten is what rewrite makes of a module.
type rewritten struct {
	wasm    []byte             // what wazero compiles
	tmpl    *imagepkg.Template // nil: no image, for noImage
	noImage string             // why there is no template
}

// rewriteCached is rewrite, through the cache when r has one.
func (r *Runtime) rewriteCached(name string, sum [sha256.Size]byte, wasm []byte) ([]byte, *imagepkg.Template, string, error) {
	if r.opts.CacheDir == "off" || (r.opts.stopper != "" && r.opts.stopper != "nodepth") {
		return r.rewrite(name, wasm)
	}
	key := rewriteKey(sum, r.opts.stopper, r.opts.MaxCompileCost)
	path := filepath.Join(r.opts.CacheDir, "rewrite", hex.EncodeToString(key[:]))
	if b, err := os.ReadFile(path); err == nil {
		rw, err := decodeRewrite(b, key)
		if err == nil {
			return rw.wasm, rw.tmpl, rw.noImage, nil
		}
		r.log.Debug("rewrite cache: entry ignored", "file", path, "err", err)
	}
	out, tmpl, noImage, err := r.rewrite(name, wasm)
	if err == nil {
		// Not written is a miss next time, nothing worse.
		atomicfile.Write(path, encodeRewrite(key, rewritten{wasm: out, tmpl: tmpl, noImage: noImage}))
	}
	return out, tmpl, noImage, err
}

// rewriteKey is an entry's key: the rewriter's version, the options, the
// compile-cost cap the entry was admitted under (an entry written by a
// host that raised it is never read by one that did not) and the
// module's sha256.
func rewriteKey(sum [sha256.Size]byte, stopper string, maxCompileCost int64) [sha256.Size]byte {
	v := rewriterVersion()
	h := sha256.New()
	fmt.Fprintf(h, "wasmagent rewrite cache\x00version %x\x00stopper %q\x00compile cost %d\x00module %x", v, stopper, maxCompileCost, sum)
	var k [sha256.Size]byte
	h.Sum(k[:0])
	return k
}

// Entry flags.
const (
	rwTemplate = 1 << iota
	rwGo
	rwInit
	rwOptOut
)

// encodeRewrite lays an entry out: the magic, the key, the flags, the
// reason for no image, the module, the template's facts (memory pages,
// globals, data segments), then the sha256 of all that. Integers are
// little-endian uint32; a byte string is its length, then its bytes.
func encodeRewrite(key [sha256.Size]byte, rw rewritten) []byte {
	n := len(rw.wasm) + len(rw.noImage) + 256
	if t := rw.tmpl; t != nil {
		for _, s := range t.Segments {
			n += len(s.Data) + 8
		}
		for _, g := range t.Globals {
			n += len(g.Export) + 9
		}
	}
	b := make([]byte, 0, n)
	b = append(b, rewriteMagic...)
	b = append(b, key[:]...)
	var flags byte
	if t := rw.tmpl; t != nil {
		flags |= rwTemplate
		if t.Go {
			flags |= rwGo
		}
		if t.Init {
			flags |= rwInit
		}
		if t.OptOut {
			flags |= rwOptOut
		}
	}
	b = append(b, flags)
	b = appendBytes(b, []byte(rw.noImage))
	b = appendBytes(b, rw.wasm)
	if t := rw.tmpl; t != nil {
		b = binary.LittleEndian.AppendUint32(b, t.MinPages)
		b = binary.LittleEndian.AppendUint32(b, uint32(len(t.Globals)))
		for _, g := range t.Globals {
			b = binary.LittleEndian.AppendUint32(b, g.Index)
			b = append(b, g.Type)
			b = appendBytes(b, []byte(g.Export))
		}
		b = binary.LittleEndian.AppendUint32(b, uint32(len(t.Segments)))
		for _, s := range t.Segments {
			b = binary.LittleEndian.AppendUint32(b, s.Offset)
			b = appendBytes(b, s.Data)
		}
	}
	sum := sha256.Sum256(b)
	return append(b, sum[:]...)
}

func appendBytes(b, p []byte) []byte {
	b = binary.LittleEndian.AppendUint32(b, uint32(len(p)))
	return append(b, p...)
}

// decodeRewrite reads an entry made by encodeRewrite for key. Any bytes
// at all give an entry or an error, never a panic; the slices returned
// point into b.
func decodeRewrite(b []byte, key [sha256.Size]byte) (rewritten, error) {
	var rw rewritten
	if len(b) < len(rewriteMagic)+2*sha256.Size+1 || string(b[:len(rewriteMagic)]) != rewriteMagic {
		return rw, errors.New("not a rewrite cache entry")
	}
	body, sum := b[:len(b)-sha256.Size], b[len(b)-sha256.Size:]
	if got := sha256.Sum256(body); string(got[:]) != string(sum) {
		return rw, errors.New("checksum mismatch (a torn or corrupt file)")
	}
	d := entryReader{b: body[len(rewriteMagic):]}
	if k := d.next(sha256.Size); string(k) != string(key[:]) {
		return rw, errors.New("the entry of another key")
	}
	var flags byte
	if f := d.next(1); f != nil {
		flags = f[0]
	}
	rw.noImage = string(d.bytes())
	rw.wasm = d.bytes()
	if d.err == nil && flags&rwTemplate != 0 {
		t := &imagepkg.Template{Go: flags&rwGo != 0, Init: flags&rwInit != 0, OptOut: flags&rwOptOut != 0}
		t.MinPages = d.u32()
		for n := d.count(9); n > 0; n-- {
			g := imagepkg.Global{Index: d.u32()}
			if tb := d.next(1); tb != nil {
				g.Type = tb[0]
			}
			g.Export = string(d.bytes())
			t.Globals = append(t.Globals, g)
		}
		for n := d.count(8); n > 0; n-- {
			t.Segments = append(t.Segments, imagepkg.Segment{Offset: d.u32(), Data: d.bytes()})
		}
		rw.tmpl = t
	}
	if d.err == nil && len(d.b) != 0 {
		d.err = fmt.Errorf("%d bytes after the entry", len(d.b))
	}
	if d.err == nil && flags&^(rwTemplate|rwGo|rwInit|rwOptOut) != 0 {
		d.err = fmt.Errorf("unknown flags %#x", flags)
	}
	if d.err != nil {
		return rewritten{}, d.err
	}
	return rw, nil
}

// entryReader reads an entry's fields; the first short read sets err,
// and every read after it gives zeros.
type entryReader struct {
	b   []byte
	err error
}

func (d *entryReader) next(n int) []byte {
	if d.err != nil {
		return nil
	}
	if n < 0 || n > len(d.b) {
		d.err = errors.New("truncated")
		return nil
	}
	p := d.b[:n:n]
	d.b = d.b[n:]
	return p
}

func (d *entryReader) u32() uint32 {
	p := d.next(4)
	if p == nil {
		return 0
	}
	return binary.LittleEndian.Uint32(p)
}

func (d *entryReader) bytes() []byte {
	n := d.u32()
	if uint64(n) > uint64(len(d.b)) {
		d.next(len(d.b) + 1)
		return nil
	}
	return d.next(int(n))
}

// count reads a number of items of at least min bytes each, refusing one
// the rest of the entry cannot hold (no allocation on a lying count).
func (d *entryReader) count(min int) int {
	n := d.u32()
	if uint64(n)*uint64(min) > uint64(len(d.b)) {
		d.next(len(d.b) + 1)
		return 0
	}
	return int(n)
}
