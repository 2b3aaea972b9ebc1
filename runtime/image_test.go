package runtime_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	randv1 "math/rand"
	randv2 "math/rand/v2"
	goruntime "runtime"
	"slices"
	"strings"
	"testing"

	"github.com/wasmagent/wasmagent/internal/wasmbuild"
	"github.com/wasmagent/wasmagent/runtime"
)

// draw is what internal/testplugins/randomness reports for one call.
type draw struct {
	Crypto   string   `json:"crypto"`
	V1       []int64  `json:"v1"`
	V2       []uint64 `json:"v2"`
	MapOrder []string `json:"mapOrder"`
	MapHash  uint64   `json:"maphash"`
	Select   []int    `json:"select"`
	ConstV1  int64    `json:"constV1"`
	ConstV2  uint64   `json:"constV2"`
	InitKey  string   `json:"initKey"`
}

func draws(t *testing.T, p *runtime.Plugin, n int) []draw {
	t.Helper()
	var ds []draw
	for range n {
		out, err := p.Call(context.Background(), "draw", nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		var d draw
		if err := json.Unmarshal(out, &d); err != nil {
			t.Fatalf("draw %q: %v", out, err)
		}
		ds = append(ds, d)
	}
	return ds
}

// Instances never share what the Go runtime draws at random, image or
// not: crypto/rand, math/rand and math/rand/v2's top-level functions,
// maphash seeds, map iteration order and select order differ from one
// instance to the next; generators seeded with constants at init give
// their own fixed sequence in every instance.
func TestImageRandomness(t *testing.T) {
	wantV1 := randv1.New(randv1.NewSource(42)).Int63()
	wantV2 := randv2.New(randv2.NewChaCha8([32]byte{'w', 'a', 's', 'm', 'a', 'g', 'e', 'n', 't'})).Uint64()
	for _, image := range []bool{true, false} {
		t.Run(fmt.Sprintf("image=%v", image), func(t *testing.T) {
			p := plugin(t, "internal/testplugins/randomness", runtime.PluginOptions{NoImage: !image, PoolSize: 2})
			if on, why := p.Image(); on != image && !runtime.ImagesOffForTests() {
				t.Fatalf("image %v, want %v (%s)", on, image, why)
			}
			ds := draws(t, p, 6)
			for i := range ds {
				for j := range i {
					a, b := ds[i], ds[j]
					switch {
					case a.Crypto == b.Crypto:
						t.Errorf("instances %d and %d drew the same crypto/rand bytes %s", j, i, a.Crypto)
					case slices.Equal(a.V1, b.V1):
						t.Errorf("instances %d and %d drew the same math/rand values %v", j, i, a.V1)
					case slices.Equal(a.V2, b.V2):
						t.Errorf("instances %d and %d drew the same math/rand/v2 values %v", j, i, a.V2)
					case a.MapHash == b.MapHash:
						t.Errorf("instances %d and %d have the same maphash seed", j, i)
					}
				}
			}
			sameMaps, sameSelects := true, true
			for _, d := range ds[1:] {
				sameMaps = sameMaps && slices.Equal(d.MapOrder, ds[0].MapOrder)
				sameSelects = sameSelects && slices.Equal(d.Select, ds[0].Select)
				if d.ConstV1 != wantV1 || d.ConstV2 != wantV2 {
					t.Errorf("a generator seeded with a constant gave %d and %d, want %d and %d", d.ConstV1, d.ConstV2, wantV1, wantV2)
				}
			}
			if sameMaps {
				t.Errorf("every instance iterates a map in the same order %v", ds[0].MapOrder)
			}
			if sameSelects {
				t.Errorf("every instance's select picks the same cases %v", ds[0].Select)
			}
			// What init computed is the image's: the same in every
			// instance of one image, drawn anew by each instance without.
			if on, _ := p.Image(); on != (ds[0].InitKey == ds[1].InitKey) {
				t.Errorf("image %v, but init's crypto/rand key is %q then %q", on, ds[0].InitKey, ds[1].InitKey)
			}
		})
	}
}

// No instance, fresh or pooled, image or not, holds a byte an earlier
// call wrote: its mark is nowhere in the next instance's memory.
func TestImageInstancesShareNoWrites(t *testing.T) {
	for _, c := range []struct {
		image bool
		pool  int
	}{{true, 0}, {true, 2}, {false, 0}} {
		t.Run(fmt.Sprintf("image=%v/pool=%d", c.image, c.pool), func(t *testing.T) {
			p := plugin(t, "internal/testplugins/probe", runtime.PluginOptions{NoImage: !c.image, PoolSize: c.pool})
			for i := range 3 {
				mark := fmt.Sprintf("m%d-%x", i, randv2.Uint64())
				if s := callState(t, p, mark); s != (seen{}) {
					t.Fatalf("call %d saw an earlier call's state: %+v", i, s)
				}
				mem, err := runtime.FreshMemory(p)
				if err != nil {
					t.Fatal(err)
				}
				if bytes.Contains(mem, []byte(mark)) {
					t.Fatalf("a fresh instance's memory holds %q, written by an earlier call", mark)
				}
			}
		})
	}
}

// The Go runtime's random state must be where images look for it: when
// a Go release moves it, this fails and images turn themselves off for
// plugins built with that release (logged). Update
// runtime/internal/image/seeds.go then.
func TestImageFindsGoRuntimeGenerators(t *testing.T) {
	if runtime.ImagesOffForTests() {
		t.Skip("images are off (WASMAGENT_TEST_IMAGES=off)")
	}
	for _, pkg := range []string{"internal/testplugins/randomness", "internal/testplugins/probe"} {
		p := plugin(t, pkg, runtime.PluginOptions{})
		if on, why := p.Image(); !on {
			t.Fatalf("%s (built with %s): no image: %s", pkg, goruntime.Version(), why)
		}
		states, cheap := runtime.ImageSeeds(p)
		t.Logf("%s: %d ChaCha8 states, %d cheaprand words", pkg, states, cheap)
		// m0.chacha8 and the global generator, at least; one cheaprand.
		if states < 2 || cheap < 1 {
			t.Fatalf("%s (built with %s): %d ChaCha8 states and %d cheaprand words found, want at least 2 and 1: the Go runtime's layout moved", pkg, goruntime.Version(), states, cheap)
		}
	}
}

// goBuildID is a custom section named go:buildid, as Go's linker writes.
var goBuildID = func() []byte {
	body := append([]byte{byte(len("go:buildid"))}, "go:buildid"...)
	body = append(body, "x"...)
	return append([]byte{0, byte(len(body))}, body...)
}()

// An init that calls a host function gets no image (its effect would not
// be replayed): the plugin runs init in every instance and still works.
// An init that does not gets one, unless turned off.
func TestImageFallsBack(t *testing.T) {
	mod := func(initBody []byte, extra ...string) []byte {
		exports := map[string]uint32{"_initialize": 1, "noop": 2}
		for _, e := range extra {
			exports[e] = 2
		}
		return wasmbuild.Module{
			Imports: []wasmbuild.Import{{Module: "extism:host/env", Name: "input_length", Func: wasmbuild.Func{Results: []byte{wasmbuild.I64}}}},
			Funcs: []wasmbuild.Func{
				{Body: initBody},
				{Results: []byte{wasmbuild.I32}, Body: []byte{0x41, 0}},
			},
			Exports:     exports,
			MemoryPages: 1,
			Data:        []byte("data the image must hold"),
		}.Encode()
	}
	for _, c := range []struct {
		name    string
		wasm    []byte
		noImage bool
		want    string // the reason, or "" for an image
	}{
		{"host call", mod([]byte{0x10, 0, 0x1a}), false, "calls the host function extism:host/env.input_length"},
		{"plain", mod(nil), false, ""},
		{"turned off", mod(nil), true, "turned off"},
		{"plugin opts out", mod(nil, "wasmagent_no_image"), false, "exports wasmagent_no_image"},
		// Built by Go (a go:buildid section) yet without Go's runtime
		// generators where images look: as after a Go release moved them.
		{"unknown Go layout", append(mod(nil), goBuildID...), false, "this Go release is not supported"},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := pluginOf(t, c.name+".wasm", c.wasm, runtime.PluginOptions{NoImage: c.noImage})
			on, why := p.Image()
			switch {
			case runtime.ImagesOffForTests():
			case c.want == "" && !on:
				t.Fatalf("no image: %s", why)
			case c.want != "" && (on || !strings.Contains(why, c.want)):
				t.Fatalf("image %v (%q), want none because %q", on, why, c.want)
			}
			for range 3 {
				if _, err := p.Call(context.Background(), "noop", nil, nil); err != nil {
					t.Fatal(err)
				}
			}
			mem, err := runtime.FreshMemory(p)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.HasPrefix(mem, []byte("data the image must hold")) {
				t.Fatalf("a fresh instance's memory starts %q, not with the module's data", mem[:24])
			}
		})
	}
}

// An init that opens a file in a granted directory gets no image: the
// file may change, and an image would replay what init read.
func TestImageInitReadingAFileFallsBack(t *testing.T) {
	if runtime.ImagesOffForTests() {
		t.Skip("images are off (WASMAGENT_TEST_IMAGES=off)")
	}
	dir := t.TempDir()
	p := plugin(t, "internal/testplugins/randomness", runtime.PluginOptions{Grants: runtime.Grants{Dirs: []runtime.Dir{{Host: dir, Guest: "/image-test"}}}})
	if on, why := p.Image(); on || !strings.Contains(why, "opens") {
		t.Fatalf("image %v (%q), want none because init opens a granted file", on, why)
	}
	if ds := draws(t, p, 2); ds[0].InitKey == ds[1].InitKey {
		t.Fatal("init ran once for two instances")
	}
}
