package runtime

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	goruntime "runtime"
	"sync/atomic"

	"github.com/tetratelabs/wazero/api"

	imagepkg "github.com/wasmagent/wasmagent/runtime/internal/image"
)

// An image is a plugin's state after its initialization, taken once per
// plugin (one grant set) when the plugin is made: each later instance is
// the module's template instantiated with this state put back, instead of
// running the initialization again (docs/runtime.md, "Images"). It lives
// in memory only.
type image struct {
	pages   uint32     // the memory's size, in pages
	runs    []imageRun // the memory's non-zero pages, coalesced
	globals []uint64   // the template's mutable globals, in its order
	seeds   imagepkg.Seeds
	// cow holds the memory in a sealed memfd that instances map
	// copy-on-write (Linux); runs then point into its read-only view.
	// Nil: instances get the runs copied.
	cow *cowImage
	// spares are memories of closed instances, reset to the image, for
	// the next instances (copied images only; image_spare.go).
	spares   chan *mappedMemory
	released atomic.Bool // the plugin is closed: no more spares
}

// imageRun is a stretch of memory, at off, that is not all zeros.
type imageRun struct {
	off  uint32
	data []byte
}

// runPage is the granularity at which zero stretches are left out.
const runPage = 4096

// noInit is why a module with nothing to initialize has no image.
const noInit = "the module has no initialization to save"

// template makes m's template for images, or says why there is none.
// The module's code is fuel-instrumented after the rewrite; tables are
// checked then (images need code that never changes a table).
func (r *Runtime) template(wasm []byte) (*imagepkg.Template, string) {
	if r.opts.stopper != "" && r.opts.stopper != "nodepth" {
		return nil, "the fuel rewrite, which checks the code, is off"
	}
	t, err := imagepkg.Make(wasm)
	if err != nil {
		if errors.Is(err, imagepkg.ErrUnsupported) {
			return nil, "the module has " + err.Error()
		}
		return nil, err.Error()
	}
	if !t.Init {
		return nil, noInit
	}
	if t.OptOut {
		return nil, "the plugin asks for none (it exports " + imagepkg.OptOutExport + ")"
	}
	return t, ""
}

// writeSegments writes the original module's data segments into a
// template instance's memory: the template has none of its own.
func writeSegments(mod api.Module, t *imagepkg.Template) error {
	mem := mod.Memory()
	for _, s := range t.Segments {
		if !mem.Write(s.Offset, s.Data) {
			return fmt.Errorf("data segment at %d (%d bytes) is out of bounds", s.Offset, len(s.Data))
		}
	}
	return nil
}

// makeImage initializes the plugin twice, with different entropy, and
// keeps the first state, with the Go runtime's random generators found by
// comparing the two. It returns why an image cannot be made, if it cannot.
//
// Both instances stay open until the image is taken: their memories are
// compared and read where they are, and only the first one's non-zero
// runs are copied, once, into the memfd (or onto the heap without one).
// Copying each whole memory to the heap first cost two memories' worth
// of allocation and copying per plugin, for nothing.
func (p *Plugin) makeImage(ctx context.Context) (*image, string) {
	t := p.m.tmpl
	var insts [2]*instance
	defer func() {
		for _, inst := range insts {
			if inst != nil {
				inst.close()
			}
		}
	}()
	var mems [2][]byte
	var globals [2][]uint64
	for k := range insts {
		inst, err := p.instantiateWith(ctx, nil, true)
		if err != nil {
			return nil, "its initialization failed: " + err.Error()
		}
		insts[k] = inst
		if why := inst.st.unreplayable; why != "" {
			return nil, "its initialization " + why
		}
		mem := inst.mod.Memory()
		mems[k], _ = mem.Read(0, mem.Size())
		for _, g := range t.Globals {
			globals[k] = append(globals[k], inst.mod.ExportedGlobal(g.Export).Get())
		}
	}
	for i := range globals[0] {
		if globals[0][i] != globals[1][i] {
			return nil, fmt.Sprintf("global %d differs from one initialization to the next", t.Globals[i].Index)
		}
	}
	img := &image{pages: uint32(len(mems[0]) / imagepkg.PageSize), globals: globals[0], spares: make(chan *mappedMemory, maxSpares)}
	if t.Go {
		img.seeds = imagepkg.FindSeeds(mems[0], mems[1])
		if len(img.seeds.States) == 0 || len(img.seeds.Cheap) == 0 {
			return nil, fmt.Sprintf("the Go runtime's random generators were not found where this host looks for them (%d ChaCha8 states, %d cheaprand words): this Go release is not supported by images", len(img.seeds.States), len(img.seeds.Cheap))
		}
	}
	// The runs point into the first instance's memory until mapCow or
	// the copy below gives them bytes of their own: nothing may use them
	// after the instances close before that.
	img.runs = nonZeroRuns(mems[0])
	if !img.mapCow(p) {
		for i := range img.runs {
			img.runs[i].data = bytes.Clone(img.runs[i].data)
		}
	}
	// A plugin not closed gives its spare memories back when it is
	// collected (Close does it at once).
	goruntime.AddCleanup(img, drainSpares, img.spares)
	return img, ""
}

// mapCow puts the image into a sealed memfd, if the platform has them,
// and points the runs into it so that their bytes are held once; it
// reports whether it did. Without one (another system, a sandbox
// refusing memfd_create), instances copy the runs.
func (img *image) mapCow(p *Plugin) bool {
	if p.noMemfd {
		return false
	}
	c, err := newCowImage(uint64(img.pages)*imagepkg.PageSize, img.runs)
	if err != nil {
		p.r.log.Debug("runtime: image copied into each instance, not mapped", "plugin", p.name, "reason", err.Error())
		return false
	}
	for i, r := range img.runs {
		img.runs[i].data = c.view[r.off : r.off+uint32(len(r.data))]
	}
	img.cow = c
	// A plugin not closed releases its image when it is collected.
	goruntime.AddCleanup(img, (*cowImage).release, c)
	return true
}

// release frees what the image holds outside the Go heap.
func (img *image) release() {
	if img == nil {
		return
	}
	img.released.Store(true)
	img.dropSpares()
	if img.cow != nil {
		img.cow.release()
	}
}

// nonZeroRuns lists the stretches of mem, in whole runPages, that are not
// all zeros. A new memory is zeros: only these need copying. The runs'
// bytes are mem's, not copies.
func nonZeroRuns(mem []byte) []imageRun {
	var runs []imageRun
	var zero [runPage]byte
	start := -1
	flush := func(end int) {
		if start >= 0 {
			runs = append(runs, imageRun{off: uint32(start), data: mem[start:end:end]})
			start = -1
		}
	}
	for off := 0; off < len(mem); off += runPage {
		end := min(off+runPage, len(mem))
		if bytes.Equal(mem[off:end], zero[:end-off]) {
			flush(off)
		} else if start < 0 {
			start = off
		}
	}
	flush(len(mem))
	return runs
}

// restore puts the image into a fresh template instance: memory, globals,
// and new seeds for the Go runtime's generators. mapped says the memory
// already holds the image (mapped copy-on-write by the allocator);
// otherwise it is new, zeros, and only the image's non-zero runs are
// copied, into a mapping with huge pages where the kernel has them
// (RATIONALE.md, "Why are images copied where there are huge pages, and
// mapped copy-on-write where there are none?").
func (img *image) restore(mod api.Module, t *imagepkg.Template, mapped bool) error {
	mem := mod.Memory()
	if have := mem.Size() / imagepkg.PageSize; have < img.pages {
		if _, ok := mem.Grow(img.pages - have); !ok {
			return fmt.Errorf("the memory cannot grow to the image's %d pages", img.pages)
		}
	}
	if !mapped {
		b, _ := mem.Read(0, mem.Size())
		if err := img.copyInto(b); err != nil {
			return err
		}
	}
	for i, g := range t.Globals {
		mg, ok := mod.ExportedGlobal(g.Export).(api.MutableGlobal)
		if !ok {
			return fmt.Errorf("global %d is not mutable in the template", g.Index)
		}
		mg.Set(img.globals[i])
	}
	if len(img.seeds.States) > 0 {
		b, _ := mem.Read(0, mem.Size())
		img.seeds.Reseed(b, func(p []byte) { rand.Read(p) })
	}
	return nil
}

// copyInto copies the image's non-zero runs into mem, which is zeros.
func (img *image) copyInto(mem []byte) error { return img.write(mem, false) }

// copyOver writes the image over mem, whatever it holds: its runs, and
// zeros between them.
func (img *image) copyOver(mem []byte) error { return img.write(mem, true) }

func (img *image) write(mem []byte, zeros bool) error {
	write := func() error {
		end := 0
		for _, r := range img.runs {
			if uint64(r.off)+uint64(len(r.data)) > uint64(len(mem)) {
				return fmt.Errorf("image run at %d is out of bounds", r.off)
			}
			if zeros {
				clear(mem[end:r.off])
			}
			end = copy(mem[r.off:], r.data) + int(r.off)
		}
		if zeros {
			clear(mem[end:])
		}
		return nil
	}
	if img.cow == nil {
		return write()
	}
	var err error
	if !img.cow.read(func([]byte) { err = write() }) {
		return errors.New("the plugin is closed: its image is released")
	}
	return err
}
