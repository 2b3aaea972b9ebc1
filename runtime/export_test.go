package runtime

import (
	"bytes"
	"context"
	"fmt"
	"os"
)

// Test helpers the external test package shares with this one.
var (
	ResetPeakRSS = resetPeakRSS
	PeakRSS      = peakRSS
)

// WASMAGENT_TEST_IMAGES=off runs the package's tests with images off for
// every plugin (make test runs the containment and isolation tests both
// ways); =map and =copy with images made that way, whatever the system's
// default (docs/runtime.md, "Images").
func init() {
	switch v := os.Getenv("WASMAGENT_TEST_IMAGES"); v {
	case "off":
		imagesOff = true
	case string(ImageMemoryMap), string(ImageMemoryCopy):
		imagesAs = ImageMemory(v)
	}
}

// ImagesOffForTests reports whether WASMAGENT_TEST_IMAGES=off is set.
func ImagesOffForTests() bool { return imagesOff }

// FreshMemory makes a fresh instance of p, as a call would get it, and
// returns a copy of its linear memory.
func FreshMemory(p *Plugin) ([]byte, error) {
	inst, err := p.instantiate(context.Background())
	if err != nil {
		return nil, err
	}
	defer inst.close()
	mem := inst.mod.Memory()
	b, _ := mem.Read(0, mem.Size())
	return bytes.Clone(b), nil
}

// ImageSeeds is how many ChaCha8 states and cheaprand words p's image
// re-draws per instance.
func ImageSeeds(p *Plugin) (states, cheap int) {
	if p.img == nil {
		return 0, 0
	}
	return len(p.img.seeds.States), len(p.img.seeds.Cheap)
}

// Pool makes n fresh instances of p, ready for a call each, as a pool
// holds them; Unpool closes them.
func Pool(p *Plugin, n int) []*instance {
	var insts []*instance
	for range n {
		inst, err := p.instantiate(context.Background())
		if err != nil {
			panic(err)
		}
		insts = append(insts, inst)
	}
	return insts
}

// CallIn calls export with input in inst, which stays open.
func CallIn(inst *instance, export string, input []byte) ([]byte, error) {
	return inst.call(context.Background(), export, input, nil, nil)
}

func Unpool(insts []*instance) {
	for _, inst := range insts {
		inst.close()
	}
}

// CallCountingHostCalls calls export in a fresh instance of p, as Call
// does, and also returns how many host functions the call (not the
// instance's initialisation) called.
func CallCountingHostCalls(ctx context.Context, p *Plugin, export string, input []byte) ([]byte, int, error) {
	inst, err := p.instantiate(ctx)
	if err != nil {
		return nil, 0, err
	}
	defer inst.close()
	before := inst.st.hostCalls
	out, err := inst.call(ctx, export, input, nil, nil)
	return out, inst.st.hostCalls - before, err
}

// WithImageMemory has the plugin's instances get its image as how says,
// whatever the Runtime's ImageMemory.
func WithImageMemory(opts PluginOptions, how ImageMemory) PluginOptions {
	opts.imageMemory = how
	return opts
}

// WithoutSpares has the plugin's memories unmapped at close, never kept
// for its next instance.
func WithoutSpares(opts PluginOptions) PluginOptions {
	opts.noSpares = true
	return opts
}

// ImageMapped reports whether p's image is in a memfd that instances map
// copy-on-write.
func ImageMapped(p *Plugin) bool { return p.img != nil && p.img.cow != nil }

// WarmImage serves as many calls of export with input, each in its own
// instance, as an image mapped copy-on-write learns its hot pages from.
func WarmImage(p *Plugin, export string, input []byte) error {
	for range learnCloses {
		inst, err := p.instantiate(context.Background())
		if err != nil {
			return err
		}
		_, err = inst.call(context.Background(), export, input, nil, nil)
		inst.close()
		if err != nil {
			return err
		}
	}
	return nil
}

// RaceEnabled reports whether the tests run under the race detector.
const RaceEnabled = raceEnabled

// HostFunctionNames lists the functions of extism:host/env and
// extism:host/user, as "module.name".
func HostFunctionNames() []string {
	var out []string
	for name := range envFunctions {
		out = append(out, "extism:host/env."+name)
	}
	for name := range userFunctions {
		out = append(out, "extism:host/user."+name)
	}
	return out
}

// PublicIP is publicIP, which dialGuard uses.
var PublicIP = publicIP

// HostFunctionTypes maps each function of HostFunctionNames to its
// parameter and result types (Wasm value type bytes).
func HostFunctionTypes() map[string][2][]byte {
	out := map[string][2][]byte{}
	add := func(mod string, fns map[string]hostFunc) {
		for name, f := range fns {
			var ps, rs []byte
			for _, t := range f.params {
				ps = append(ps, byte(t))
			}
			for _, t := range f.results {
				rs = append(rs, byte(t))
			}
			out[mod+"."+name] = [2][]byte{ps, rs}
		}
	}
	add("extism:host/env", envFunctions)
	add("extism:host/user", userFunctions)
	return out
}

// WASIFunctionTypes maps each function of wasi_snapshot_preview1, as r
// provides it, to its parameter and result types.
func WASIFunctionTypes(r *Runtime) map[string][2][]byte {
	out := map[string][2][]byte{}
	for name, def := range r.rt.Module("wasi_snapshot_preview1").ExportedFunctionDefinitions() {
		var ps, rs []byte
		for _, t := range def.ParamTypes() {
			ps = append(ps, byte(t))
		}
		for _, t := range def.ResultTypes() {
			rs = append(rs, byte(t))
		}
		out["wasi_snapshot_preview1."+name] = [2][]byte{ps, rs}
	}
	return out
}

// KernelScript runs steps operations on a kernel of limit bytes: next
// says whether to allocate (n bytes) or to free (the pick-th live block,
// modulo their number). It returns how the invariant broke (the bytes in
// use and BlockCost per live block stay within the limit), or "".
func KernelScript(limit uint64, next func() (alloc bool, n uint64, pick int), steps int) string {
	k := newKernel(limit, 1<<40)
	defer k.release()
	var live []uint64
	for i := range steps {
		alloc, n, pick := next()
		switch {
		case alloc:
			if off, f := k.alloc(n); f == nil && n > 0 {
				live = append(live, off)
			}
		case len(live) > 0:
			j := pick % len(live)
			k.free(live[j])
			live = append(live[:j], live[j+1:]...)
		}
		if held := uint64(len(k.mem)) + BlockCost*uint64(len(k.blocks)); held > limit {
			return fmt.Sprintf("step %d: %d bytes in use and %d blocks count %d bytes, over the limit", i, len(k.mem), len(k.blocks), held)
		}
	}
	return ""
}
