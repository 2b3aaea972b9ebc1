package runtime

import (
	"bytes"
	"context"
	goruntime "runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wasmagent/wasmagent/internal/wasmbuild"
	imagepkg "github.com/wasmagent/wasmagent/runtime/internal/image"
)

// probeRuntime is one Runtime for this file's tests, compiled modules
// cached on disk in the tests' shared cache, as the other tests' are (not
// the user's own cache, where make test's warming never put them).
var probeRuntime = sync.OnceValues(func() (*Runtime, error) {
	return New(context.Background(), Options{CacheDir: wasmbuild.TestCacheDir()})
})

func imagePlugin(t *testing.T, how ImageMemory) *Plugin {
	t.Helper()
	return imagePluginWith(t, PluginOptions{imageMemory: how})
}

func imagePluginWith(t *testing.T, opts PluginOptions) *Plugin {
	t.Helper()
	m := probeModule(t)
	p, err := m.r.NewPlugin(m, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	if p.img == nil {
		t.Fatalf("no image: %s", p.noImage)
	}
	return p
}

// probeModule is the probe plugin compiled, for tests of images (skipped
// with images off).
func probeModule(t *testing.T) *Module {
	t.Helper()
	if imagesOff {
		t.Skip("images are off (WASMAGENT_TEST_IMAGES=off)")
	}
	m, err := probeCompiled()
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// probeCompiled is the probe plugin built and compiled once per test
// process.
var probeCompiled = sync.OnceValues(func() (*Module, error) {
	r, err := probeRuntime()
	if err != nil {
		return nil, err
	}
	path, err := wasmbuild.Cached("internal/testplugins/probe")
	if err != nil {
		return nil, err
	}
	return r.CompileFile(context.Background(), path)
})

// wantImage is the memory an instance of p must start with, and a mask
// of the bytes that are re-drawn per instance (the Go runtime's seeds).
func wantImage(p *Plugin) (want []byte, redrawn []bool) {
	want = make([]byte, uint64(p.img.pages)*imagepkg.PageSize)
	if err := p.img.copyInto(want); err != nil {
		panic(err)
	}
	redrawn = make([]bool, len(want))
	for _, off := range p.img.seeds.States {
		for i := range imagepkg.StateSize {
			redrawn[int(off)+i] = true
		}
	}
	for _, off := range p.img.seeds.Cheap {
		for i := range 8 {
			redrawn[int(off)+i] = true
		}
	}
	return want, redrawn
}

// Every instance starts from exactly the image, whatever the instances
// before it wrote, in the image's pages and in memory grown past it; with
// the image mapped copy-on-write, also once the pages instances write
// have been learnt and are populated up front; with the image copied,
// also in a spare memory, a closed instance's reset to the image; and
// with the image on the heap, as without memfds, whose runs were taken
// from the instances that made the image before they closed.
func TestImageMemoryIsTheImage(t *testing.T) {
	for _, c := range []struct {
		name string
		opts PluginOptions
	}{
		{string(ImageMemoryMap), PluginOptions{imageMemory: ImageMemoryMap}},
		{string(ImageMemoryCopy), PluginOptions{imageMemory: ImageMemoryCopy}},
		{"heap", PluginOptions{imageMemory: ImageMemoryCopy, noMemfd: true}},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := imagePluginWith(t, c.opts)
			if c.opts.noMemfd && p.img.cow != nil {
				t.Fatal("the image is in a memfd, not on the heap")
			}
			want, redrawn := wantImage(p)
			zeros := make([]byte, 16*imagepkg.PageSize)
			mark := make([]byte, runPage)
			for i := range learnCloses + 3 {
				inst, err := p.instantiate(context.Background())
				if err != nil {
					t.Fatal(err)
				}
				mem := inst.mod.Memory()
				got, _ := mem.Read(0, mem.Size())
				if len(got) != len(want) {
					t.Fatalf("instance %d: memory of %d bytes, the image has %d", i, len(got), len(want))
				}
				// Page by page, then byte by byte where a page differs
				// (the re-drawn seeds differ in every instance).
				for page := 0; page < len(want); page += runPage {
					end := min(page+runPage, len(want))
					if bytes.Equal(got[page:end], want[page:end]) {
						continue
					}
					for off := page; off < end; off++ {
						if got[off] != want[off] && !redrawn[off] {
							t.Fatalf("instance %d: byte %#x is %#x, the image's is %#x", i, off, got[off], want[off])
						}
					}
				}
				// Write every byte, and grow the memory and write there.
				for j := range mark {
					mark[j] = byte(0xA0 + i)
				}
				for off := 0; off < len(got); off += len(mark) {
					copy(got[off:], mark)
				}
				if _, ok := mem.Grow(16); !ok {
					t.Fatal("the memory does not grow")
				}
				grown, _ := mem.Read(uint32(len(want)), 16*imagepkg.PageSize)
				if !bytes.Equal(grown, zeros) {
					t.Fatalf("instance %d: memory grown past the image is not zeros", i)
				}
				for off := 0; off < len(grown); off += len(mark) {
					copy(grown[off:], mark)
				}
				inst.close()
			}
			if c.opts.imageMemory == ImageMemoryMap {
				checkLearntAll(t, p)
			}
			if c.opts.imageMemory == ImageMemoryCopy && len(p.img.spares) != maxSpares {
				t.Errorf("%d spare memories kept after the instances closed, want %d", len(p.img.spares), maxSpares)
			}
			out, err := p.Call(context.Background(), "execute", []byte(`{"toolCallId":"c","name":"echo","args":{"text":"from the image"}}`), nil)
			if err != nil || !strings.Contains(string(out), "from the image") {
				t.Fatalf("a call: %v %.200s", err, out)
			}
		})
	}
}

// With the image mapped, its memfd refuses every change: writes, a
// writable shared mapping, a new size.
func TestImageMemfdIsSealed(t *testing.T) {
	p := imagePlugin(t, ImageMemoryMap)
	if p.img.cow == nil {
		t.Skip("no memfd on this system: images are copied")
	}
	for _, err := range cowChanges(p.img.cow) {
		if err == nil {
			t.Error("the image's memfd accepted a change")
		}
	}
}

// A plugin closed releases its image: a call made after fails with an
// error that says so, and does not crash the host.
func TestImageReleasedAtClose(t *testing.T) {
	for _, how := range []ImageMemory{ImageMemoryMap, ImageMemoryCopy} {
		t.Run(string(how), func(t *testing.T) {
			p := imagePlugin(t, how)
			p.Close()
			_, err := p.Call(context.Background(), "execute", []byte(`{"toolCallId":"c","name":"echo","args":{"text":"x"}}`), nil)
			if p.img.cow == nil {
				return // images on the heap: nothing released
			}
			if err == nil || !strings.Contains(err.Error(), "closed") {
				t.Fatalf("a call after Close: %v, want an error saying the plugin is closed", err)
			}
		})
	}
}

func TestThpChoice(t *testing.T) {
	for setting, want := range map[string]ImageMemory{
		"always [madvise] never\n": ImageMemoryCopy,
		"[always] madvise never\n": ImageMemoryCopy,
		"always madvise [never]\n": ImageMemoryMap,
		"":                         ImageMemoryMap,
	} {
		if got := thpChoice(setting); got != want {
			t.Errorf("thpChoice(%q) = %q, want %q", setting, got, want)
		}
	}
	if _, err := New(context.Background(), Options{ImageMemory: "mmap"}); err == nil || !strings.Contains(err.Error(), `"mmap"`) {
		t.Errorf("ImageMemory \"mmap\": %v, want an error naming it", err)
	}
}

// A memory that grew far past the image is unmapped at close, not kept
// as a spare: a spare holds the image and little more.
func TestImageSpareNotKeptPastGrowth(t *testing.T) {
	if maxSpares == 0 {
		t.Skip("no spare memories on this system")
	}
	p := imagePlugin(t, ImageMemoryCopy)
	for _, grow := range []uint32{1, maxSpareGrowth>>16 + 1} {
		inst, err := p.instantiate(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := inst.mod.Memory().Grow(grow); !ok {
			t.Fatalf("the memory does not grow by %d pages", grow)
		}
		inst.close()
		kept := len(p.img.spares) == 1
		if want := grow == 1; kept != want {
			t.Errorf("grown by %d pages: spare kept %v, want %v", grow, kept, want)
		}
		p.img.dropSpares()
	}
}

// A plugin dropped without Close gives its spare memory back when it is
// collected: the spare waiting for its next instance must not keep the
// plugin's image reachable (it did, through its recycle function, and the
// cleanup never ran).
func TestImageSpareReleasedWhenCollected(t *testing.T) {
	if maxSpares == 0 {
		t.Skip("no spare memories on this system")
	}
	m := probeModule(t)
	spares := func() chan *mappedMemory {
		p, err := m.r.NewPlugin(m, PluginOptions{imageMemory: ImageMemoryCopy})
		if err != nil {
			t.Fatal(err)
		}
		if p.img == nil {
			t.Fatalf("no image: %s", p.noImage)
		}
		if _, err := p.Call(context.Background(), "execute", []byte(`{"toolCallId":"c","name":"echo","args":{"text":"x"}}`), nil); err != nil {
			t.Fatal(err)
		}
		return p.img.spares
	}()
	for deadline := time.Now().Add(30 * time.Second); len(spares) == 0 && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond) // the instance is closed after the call returns
	}
	if len(spares) != 1 {
		t.Fatalf("%d spares after a call, want 1", len(spares))
	}
	for deadline := time.Now().Add(30 * time.Second); len(spares) > 0 && time.Now().Before(deadline); {
		goruntime.GC()
		time.Sleep(10 * time.Millisecond)
	}
	if len(spares) != 0 {
		t.Fatal("the spare memory of a plugin collected without Close was never given back")
	}
}
